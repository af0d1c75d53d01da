import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { controllerNames } from '../../src/controllers/registry.ts';
import { DEPLOY_NAME, deployRbacPlan, renderDeployFiles, repoRoot } from '../../src/deploy/render.ts';
import { flattenRules, type PolicyRule } from '../../src/rbac.ts';
import { WATCHED_NAMESPACE_PLACEHOLDER } from '../../src/deploy/rbac-manifests.ts';
import { admissionWebhooks } from '../../src/webhooks/index.ts';
import { FEATURE_GATE_DEFAULTS } from '../../src/config/feature-gates.ts';
import { NO_POD_CACHE } from '../../src/webhooks/pod-cache.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- YAML documents probed field by field
type Obj = Record<string, any>;
const base = path.join(repoRoot, 'deploy/kustomize/base');
const docs = (file: string): Obj[] => parseAllDocuments(readFileSync(path.join(base, file), 'utf8')).map((d) => d.toJS() as Obj);

describe('deploy/', () => {
  it('holds exactly what `npm run gen:deploy` generates (RBAC, webhooks, CRDs)', () => {
    for (const f of renderDeployFiles()) {
      expect(readFileSync(path.join(repoRoot, f.path), 'utf8'), `${f.path} is stale: run npm run gen:deploy`).toBe(f.content);
    }
  });

  it('grants exactly the calls the code declares: each rule in the role the plan gives it', () => {
    const rbac = docs('rbac.yaml');
    const rules = (kind: string, name: string): PolicyRule[] => rbac.find((o) => o.kind === kind && o.metadata.name === name)!.rules as PolicyRule[];
    const plan = deployRbacPlan();
    expect(flattenRules(rules('ClusterRole', DEPLOY_NAME))).toEqual(flattenRules(plan.clusterRole));
    expect(flattenRules(rules('Role', DEPLOY_NAME))).toEqual(flattenRules(plan.ownNamespaceRole));
    expect(flattenRules(rules('ClusterRole', `${DEPLOY_NAME}-certificates`))).toEqual(flattenRules(plan.certificatesClusterRole));
    expect(flattenRules(rules('Role', `${DEPLOY_NAME}-certificates`))).toEqual(flattenRules(plan.certificatesRole));
    expect(rbac.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].flatMap((k) => [`${k}/${DEPLOY_NAME}`, `${k}/${DEPLOY_NAME}-certificates`]).sort(),
    );
    // Least privilege: no wildcards, no list/watch on secrets, writes to named objects only.
    for (const line of rbac.flatMap((o) => flattenRules((o.rules ?? []) as PolicyRule[]))) {
      expect(line).not.toContain('*|*');
      expect(line).not.toMatch(/^\|secrets\|(list|watch)/);
    }
  });

  it('runs two non-root replicas with leader election, probes, resources and a locked-down container', () => {
    const deploy = docs('deployment.yaml')[0]!;
    const pod = deploy.spec.template.spec;
    const container = pod.containers[0];
    expect(deploy.spec.replicas).toBe(2);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits.memory).toBeDefined();
    // The args are valid flags, and the names they use are the ones RBAC and the Service carry.
    const loaded = loadConfig({ argv: container.args, env: {}, knownControllers: controllerNames(), inClusterNamespace: () => 'cloneset-suite-system' });
    if (loaded.kind !== 'config') throw new Error('help?');
    expect(loaded.config.leaderElect).toBe(true);
    const service = docs('service.yaml')[0]!;
    expect(service.metadata.name).toBe(loaded.config.webhookServiceName);
    expect(service.spec.ports.map((p: Obj) => String(p.targetPort)).sort()).toEqual(['metrics', 'webhook']);
    const plan = deployRbacPlan();
    const names = flattenRules([...plan.ownNamespaceRole, ...plan.certificatesRole]).join('\n');
    expect(names).toContain(`|leases|update|${loaded.config.leaderElectionId}`);
    expect(names).toContain(`|secrets|update|${loaded.config.webhookSecretName}`);
    expect(docs('webhooks.yaml').every((c) => c.metadata.name === loaded.config.webhookConfigurationName)).toBe(true);
  });

  it('configures every registered webhook through the Service, side-effect free, with a timeout and failure policy', () => {
    const hooks = admissionWebhooks({ pods: NO_POD_CACHE, featureGates: { ...FEATURE_GATE_DEFAULTS }, transitionRuleWebhookAllowedPrefixes: [] });
    const entries = docs('webhooks.yaml').flatMap((c) => c.webhooks as Obj[]);
    expect(entries.map((w) => String(w.clientConfig.service.path)).sort()).toEqual(hooks.map((h) => h.path).sort());
    for (const w of entries) {
      expect(w.sideEffects).toBe('None');
      expect(['Fail', 'Ignore']).toContain(w.failurePolicy);
      expect(w.timeoutSeconds).toBeGreaterThan(0);
      expect(w.admissionReviewVersions).toEqual(['v1']);
      expect(w.clientConfig.service).toMatchObject({ name: 'cloneset-suite-webhook', namespace: 'cloneset-suite-system', port: 443 });
    }
  });

  it('keeps one webhook server through voluntary disruptions and admits only the served ports', () => {
    const k = docs('kustomization.yaml')[0]!;
    expect(k.resources).toEqual(expect.arrayContaining(['poddisruptionbudget.yaml', 'networkpolicy.yaml']));
    const podLabels = docs('deployment.yaml')[0]!.spec.template.metadata.labels as Record<string, string>;
    const pdb = docs('poddisruptionbudget.yaml')[0]!;
    expect(pdb).toMatchObject({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec: { minAvailable: 1, selector: { matchLabels: podLabels } } });
    const np = docs('networkpolicy.yaml')[0]!;
    expect(np).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', spec: { podSelector: { matchLabels: podLabels }, policyTypes: ['Ingress'] } });
    const ports = (np.spec.ingress as Obj[]).flatMap((r) => (r.ports as Obj[]).map((p) => String(p.port))).sort();
    expect(ports).toEqual(['health', 'metrics', 'webhook']);
    const metricsRule = (np.spec.ingress as Obj[]).find((r) => (r.ports as Obj[]).some((p) => p.port === 'metrics'))!;
    expect(metricsRule.from).toBeDefined();
    const helm = (f: string): string => readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/templates', f), 'utf8');
    expect(helm('poddisruptionbudget.yaml')).toMatch(/kind: PodDisruptionBudget/);
    expect(helm('networkpolicy.yaml')).toMatch(/kind: NetworkPolicy/);
  });

  it('spreads the replicas one per node, required by default, relaxed by a chart value', () => {
    const pod = docs('deployment.yaml')[0]!.spec.template;
    const spread = { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Honor', labelSelector: { matchLabels: pod.metadata.labels } };
    expect(pod.spec.topologySpreadConstraints).toEqual([{ ...spread, whenUnsatisfiable: 'DoNotSchedule' }]);
    const values = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/values.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(values.nodeSpread).toEqual({ whenUnsatisfiable: 'DoNotSchedule' });
    const helm = readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/templates/deployment.yaml'), 'utf8');
    expect(helm).toContain('whenUnsatisfiable: {{ .Values.nodeSpread.whenUnsatisfiable }}');
  });

  it('the chart\'s values for the manager\'s limits default to the flags\' own defaults', () => {
    const values = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/values.yaml'), 'utf8'))[0]!.toJS() as Obj;
    const fromValues: [string, unknown][] = [
      ['webhook-idle-timeout', values.webhook.idleTimeout],
      ['webhook-max-connections', values.webhook.maxConnections],
      ['webhook-max-requests-in-flight', values.webhook.maxRequestsInFlight],
      ['webhook-conversion-max-requests-in-flight', values.webhook.conversionMaxRequestsInFlight],
      ['transition-rule-webhook-max-concurrent-calls', values.transitionRuleWebhookMaxConcurrentCalls],
      ['transition-rule-webhook-max-concurrent-calls-per-namespace', values.transitionRuleWebhookMaxConcurrentCallsPerNamespace],
      ['transition-rule-kube-api-qps', values.transitionRuleKubeApiQps],
      ['transition-rule-kube-api-burst', values.transitionRuleKubeApiBurst],
      ['kube-api-qps', values.kubeApiQps],
      ['kube-api-burst', values.kubeApiBurst],
    ];
    const loaded = loadConfig({ argv: fromValues.map(([flag, value]) => `--${flag}=${String(value)}`), env: {}, knownControllers: controllerNames() });
    const defaults = loadConfig({ argv: [], env: {}, knownControllers: controllerNames() });
    if (loaded.kind !== 'config' || defaults.kind !== 'config') throw new Error('help?');
    const keys = ['webhookIdleTimeoutMs', 'webhookMaxConnections', 'webhookMaxRequestsInFlight', 'webhookConversionMaxRequestsInFlight', 'transitionRuleWebhookMaxConcurrentCalls', 'transitionRuleWebhookMaxConcurrentCallsPerNamespace', 'transitionRuleKubeApiQps', 'transitionRuleKubeApiBurst', 'kubeApiQps', 'kubeApiBurst'] as const;
    expect(Object.fromEntries(keys.map((k) => [k, loaded.config[k]]))).toEqual(Object.fromEntries(keys.map((k) => [k, defaults.config[k]])));
  });

  it('ships one default memory request and limit, in the chart and in kustomize', () => {
    const container = docs('deployment.yaml')[0]!.spec.template.spec.containers[0] as Obj;
    const values = parseAllDocuments(readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/values.yaml'), 'utf8'))[0]!.toJS() as Obj;
    expect(values.resources).toEqual(container.resources);
  });

  it('binds the webhook server to the pod IP, not every interface', () => {
    const container = docs('deployment.yaml')[0]!.spec.template.spec.containers[0] as Obj;
    expect(container.args).toContain('--webhook-host=$(POD_IP)');
    expect(container.env).toContainEqual({ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } });
    const helm = readFileSync(path.join(repoRoot, 'deploy/helm/cloneset-suite/templates/deployment.yaml'), 'utf8');
    expect(helm).toContain('--webhook-host=$(POD_IP)');
    expect(helm).toContain('fieldPath: status.podIP');
  });

  it('installs a CloneSet CRD serving v1alpha1 only, with no conversion stanza, in the kustomize base and the chart', () => {
    for (const file of [path.join(base, 'crds/apps.kruise.io_clonesets.yaml'), path.join(repoRoot, 'deploy/helm/cloneset-suite/crds/apps.kruise.io_clonesets.yaml')]) {
      const crd = parseAllDocuments(readFileSync(file, 'utf8'))[0]!.toJS() as Obj;
      expect((crd.spec.versions as Obj[]).map((v) => [v.name as string, v.served as boolean, v.storage as boolean])).toEqual([['v1alpha1', true, true]]);
      expect(crd.spec.conversion).toBeUndefined();
    }
  });

  it('the v1beta1 component (kubectl kustomize of an overlay) serves v1beta1 converted by the manager\'s Service, and passes --serve-v1beta1', () => {
    // An overlay as a user writes one, beside copies of the base and the component.
    const dir = mkdtempSync(path.join(tmpdir(), 'cloneset-suite-overlay-'));
    try {
      cpSync(path.join(repoRoot, 'deploy/kustomize'), path.join(dir, 'kustomize'), { recursive: true });
      mkdirSync(path.join(dir, 'kustomize/overlay'));
      writeFileSync(path.join(dir, 'kustomize/overlay/kustomization.yaml'), 'resources: [../base]\ncomponents: [../components/v1beta1]\n');
      const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', path.join(dir, 'kustomize/overlay')], { encoding: 'utf8' })).map((d) => d.toJS() as Obj);
      const crd = rendered.find((o) => o.kind === 'CustomResourceDefinition' && o.metadata.name === 'clonesets.apps.kruise.io')!;
      const service = docs('service.yaml')[0]!;
      const webhookPort = (service.spec.ports as Obj[]).find((p) => p.targetPort === 'webhook')!.port;
      expect((crd.spec.versions as Obj[]).map((v) => [v.name as string, v.served as boolean, v.storage as boolean])).toEqual([['v1alpha1', true, true], ['v1beta1', true, false]]);
      expect(crd.spec.conversion).toEqual({
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: service.metadata.namespace, name: service.metadata.name, path: '/convert', port: webhookPort } } },
      });
      const deployment = rendered.find((o) => o.kind === 'Deployment')!;
      expect(deployment.spec.template.spec.containers[0].args).toContain('--serve-v1beta1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists every base file in the kustomization', () => {
    const k = docs('kustomization.yaml')[0]!;
    expect(k.resources).toEqual(expect.arrayContaining(['rbac.yaml', 'webhooks.yaml', 'deployment.yaml', 'service.yaml', 'serviceaccount.yaml', 'namespace.yaml']));
    for (const f of renderDeployFiles().filter((f) => f.path.startsWith('deploy/kustomize/base/crds/'))) {
      expect(k.resources).toContain(f.path.replace('deploy/kustomize/base/', ''));
    }
  });

  it('lists every generated file of each kustomize component in its kustomization, and the watched namespace\'s replacement reaches every object placed there', () => {
    const generated = renderDeployFiles().filter((f) => f.path.startsWith('deploy/kustomize/components/'));
    for (const f of generated) {
      const dir = path.dirname(f.path);
      const k = parseAllDocuments(readFileSync(path.join(repoRoot, dir, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as Obj;
      const listed = [...((k.resources ?? []) as string[]), ...((k.patches ?? []) as Obj[]).map((p) => p.path as string | undefined)];
      expect(listed, `${dir}/kustomization.yaml`).toContain(path.basename(f.path));
    }
    const dir = path.join(repoRoot, 'deploy/kustomize/components/watch-namespace');
    const k = parseAllDocuments(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'))[0]!.toJS() as Obj;
    const placed = parseAllDocuments(readFileSync(path.join(dir, 'rbac.yaml'), 'utf8')).map((d) => d.toJS() as Obj);
    const targets = (k.replacements as Obj[])[0]!.targets as Obj[];
    for (const o of placed) {
      expect(o.metadata.namespace).toBe(WATCHED_NAMESPACE_PLACEHOLDER);
      expect(targets, `${o.kind}/${o.metadata.name}`).toContainEqual({ select: { kind: o.kind, name: o.metadata.name }, fieldPaths: ['metadata.namespace'] });
    }
  });
});
