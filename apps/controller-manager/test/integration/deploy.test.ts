// Every manifest of deploy/ is accepted by the apiserver (server-side dry run): the kustomize
// base, and the Helm chart rendered with `helm template` (helm from PATH, or built once from its
// Go module by apps/controller-manager/scripts/helm.sh --build).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { kubectl, repoRoot } from '@cloneset-suite/local-cluster';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEPLOY_NAME, deployRbacPlan, rbacObjects } from '../../src/deploy/render.ts';
import { ALERT_RULES } from '../../src/observability/alerts.ts';
import { grafanaDashboard } from '../../src/observability/dashboard.ts';
import { flattenRules, type PolicyRule } from '../../src/rbac.ts';

const NAMESPACE = 'cloneset-suite-system';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests probed field by field
type Rendered = { kind: string; metadata: { name: string; namespace?: string }; rules?: PolicyRule[]; subjects?: unknown; spec?: any };
const helmScript = fileURLToPath(new URL('../../scripts/helm.sh', import.meta.url));

/** helm from PATH or $HELM, else built once from its Go module into the cache (minutes, first time). */
function helmBinary(): string {
  return execFileSync('bash', [helmScript, '--build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
}

/**
 * One line of kubectl output per object. CRDs are dry-run replaced (or created) whole: applied,
 * they would merge with the live CRD, whose conversion webhook another installer may have
 * pointed at a URL (the cluster suites' shared one), and url plus service is refused.
 */
async function serverDryRun(manifests: string): Promise<string> {
  const docs = parseAllDocuments(manifests).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null).filter((o) => o !== null);
  const crds = docs.filter((o) => o.kind === 'CustomResourceDefinition');
  const rest = docs.filter((o) => o.kind !== 'CustomResourceDefinition');
  let out = '';
  for (const crd of crds) {
    const exists = (await kubectl(['get', 'crd', crd.metadata?.name ?? '', '--ignore-not-found', '-o', 'name'])).trim() !== '';
    out += await kubectl([exists ? 'replace' : 'create', '--dry-run=server', '-f', '-'], JSON.stringify(crd));
  }
  const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rest });
  return out + (await kubectl(['apply', '--dry-run=server', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-deploy-test', '-f', '-'], list));
}

/** The manager container's args in `helm template` of the chart with `extra` values. */
function managerArgs(...extra: string[]): string[] {
  const rendered = execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const deployment = parseAllDocuments(rendered).map((d) => d.toJS() as { kind: string; spec: { template: { spec: { containers: { args: string[] }[] } } } }).find((o) => o?.kind === 'Deployment')!;
  return deployment.spec.template.spec.containers[0]!.args;
}

describe('deploy/ manifests', () => {
  beforeAll(async () => {
    // Namespaced objects are checked inside their namespace, which must exist for a dry run.
    await kubectl(['create', 'namespace', NAMESPACE]).catch((err: Error) => {
      if (!err.message.includes('AlreadyExists')) throw err;
    });
  });

  it('kustomize base: every object passes server-side validation', async () => {
    const rendered = await kubectl(['kustomize', path.join(repoRoot, 'deploy/kustomize/base')]);
    const kinds = parseAllDocuments(rendered).map((d) => (d.toJS() as { kind: string }).kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['Namespace', 'CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Service', 'Deployment', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']),
    );
    const out = await serverDryRun(rendered);
    expect(out.trim().split('\n')).toHaveLength(kinds.length);
    expect(out).not.toMatch(/error/i);
  });

  it('Helm chart: helm template passes server-side validation and grants the declared RBAC', async () => {
    const rendered = execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, '--include-crds'], { encoding: 'utf8' });
    const objects = parseAllDocuments(rendered).map((d) => d.toJS() as { kind: string; metadata: { name: string }; rules?: PolicyRule[] }).filter((o) => o);
    const plan = deployRbacPlan();
    const rules = (kind: string, name: string): string[] => flattenRules(objects.find((o) => o.kind === kind && o.metadata.name === name)!.rules!);
    expect(rules('ClusterRole', DEPLOY_NAME)).toEqual(flattenRules(plan.clusterRole));
    expect(rules('Role', DEPLOY_NAME)).toEqual(flattenRules(plan.ownNamespaceRole));
    expect(rules('ClusterRole', `${DEPLOY_NAME}-certificates`)).toEqual(flattenRules(plan.certificatesClusterRole));
    expect(rules('Role', `${DEPLOY_NAME}-certificates`)).toEqual(flattenRules(plan.certificatesRole));
    const out = await serverDryRun(rendered);
    expect(out.trim().split('\n')).toHaveLength(objects.length);
  }, 600_000);

  it('Helm chart: the dashboard ConfigMap carries the Grafana sidecar label; the PrometheusRule renders where its kind is served', () => {
    const render = (...extra: string[]) =>
      parseAllDocuments(execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, ...extra], { encoding: 'utf8' }))
        .map((d) => d.toJS() as { kind: string; metadata: { name: string; labels?: Record<string, string> }; data?: Record<string, string>; spec?: { groups: { rules: unknown[] }[] } })
        .filter((o) => o);
    const plain = render();
    const dashboard = plain.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'cloneset-suite-grafana-dashboard')!;
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data!['cloneset-suite.json']!)).toEqual(grafanaDashboard());
    expect(plain.some((o) => o.kind === 'PrometheusRule')).toBe(false);
    const withOperator = render('--api-versions', 'monitoring.coreos.com/v1/PrometheusRule');
    expect(withOperator.find((o) => o.kind === 'PrometheusRule')!.spec!.groups[0]!.rules).toEqual(ALERT_RULES);
    expect(render('--set', 'grafanaDashboard.enabled=false').some((o) => o.kind === 'ConfigMap' && o.metadata.name === 'cloneset-suite-grafana-dashboard')).toBe(false);
  }, 600_000);

  it('Helm chart: serveV1beta1 passes --serve-v1beta1 to the manager (off by default)', () => {
    expect(managerArgs()).not.toContain('--serve-v1beta1');
    expect(managerArgs('--set', 'serveV1beta1=true')).toContain('--serve-v1beta1');
  }, 600_000);

  it('Helm chart: the PodTransitionRule egress values pass the manager\'s flags (none by default)', () => {
    expect(managerArgs().filter((a) => a.startsWith('--transition-rule-webhook-allow-addresses') || a.startsWith('--transition-rule-webhook-private-cidrs'))).toEqual([]);
    expect(managerArgs('--set', 'transitionRuleWebhookAllowAddresses={loopback,link-local}', '--set', 'transitionRuleWebhookPrivateCidrs={10.96.0.0/12,10.244.0.0/16}')).toEqual(
      expect.arrayContaining(['--transition-rule-webhook-allow-addresses=loopback,link-local', '--transition-rule-webhook-private-cidrs=10.96.0.0/12,10.244.0.0/16']),
    );
  }, 600_000);

  it('Helm chart: the webhook port\'s and the PodTransitionRule controller\'s limits pass the manager\'s flags, the flags\' defaults unless set; a bad value is refused naming it', () => {
    const limits = (args: string[]): string[] => args.filter((a) => /^--(webhook-(idle-timeout|max-connections|max-requests-in-flight|conversion-max-requests-in-flight)|transition-rule-(webhook-max-concurrent-calls|webhook-max-concurrent-calls-per-namespace|kube-api-qps|kube-api-burst))=/.test(a)).sort();
    expect(limits(managerArgs())).toEqual([
      '--transition-rule-kube-api-burst=30',
      '--transition-rule-kube-api-qps=20',
      '--transition-rule-webhook-max-concurrent-calls-per-namespace=4',
      '--transition-rule-webhook-max-concurrent-calls=16',
      '--webhook-conversion-max-requests-in-flight=2',
      '--webhook-idle-timeout=60s',
      '--webhook-max-connections=512',
      '--webhook-max-requests-in-flight=32',
    ]);
    const set = ['webhook.idleTimeout=30s', 'webhook.maxConnections=128', 'webhook.maxRequestsInFlight=16', 'webhook.conversionMaxRequestsInFlight=1', 'transitionRuleWebhookMaxConcurrentCalls=32', 'transitionRuleWebhookMaxConcurrentCallsPerNamespace=2', 'transitionRuleKubeApiQps=5', 'transitionRuleKubeApiBurst=10'];
    expect(limits(managerArgs(...set.flatMap((v) => ['--set', v])))).toEqual([
      '--transition-rule-kube-api-burst=10',
      '--transition-rule-kube-api-qps=5',
      '--transition-rule-webhook-max-concurrent-calls-per-namespace=2',
      '--transition-rule-webhook-max-concurrent-calls=32',
      '--webhook-conversion-max-requests-in-flight=1',
      '--webhook-idle-timeout=30s',
      '--webhook-max-connections=128',
      '--webhook-max-requests-in-flight=16',
    ]);
    expect(() => managerArgs('--set', 'webhook.maxRequestsInFlight=0')).toThrow(/maxRequestsInFlight/);
    expect(() => managerArgs('--set', 'webhook.idleTimeout=forever')).toThrow(/idleTimeout/);
  }, 600_000);

  it('Helm chart: controllerRing runs the replicas as shards named after their pods (one leader-elected manager by default)', () => {
    expect(managerArgs()).toEqual(expect.arrayContaining(['--leader-elect=true']));
    expect(managerArgs().some((a) => a.startsWith('--controller-ring'))).toBe(false);
    const ring = managerArgs('--set', 'controllerRing=cloneset-suite');
    expect(ring).toContain('--controller-ring=cloneset-suite');
    // The shard's own Lease keeps the lease timings; leader election and its Lease name go.
    expect(ring.filter((a) => a.startsWith('--leader-elect=') || a.startsWith('--leader-election-id'))).toEqual([]);
  }, 600_000);

  describe('Helm chart values and kustomize components, on the rendered objects', () => {
    const WATCHED = 'deploy-test-watched';
    const everywhere = deployRbacPlan();
    const watched = deployRbacPlan({ watchNamespace: true, selfManagedCertificates: true });
    const rendered = (manifests: string): Rendered[] => parseAllDocuments(manifests).map((d) => d.toJS() as Rendered | null).filter((o): o is Rendered => o !== null);
    const helmTemplate = (...args: string[]): string =>
      execFileSync(helmBinary(), ['template', 'cloneset-suite', path.join(repoRoot, 'deploy/helm/cloneset-suite'), '--namespace', NAMESPACE, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const helmError = (...args: string[]): string => {
      try {
        helmTemplate(...args);
      } catch (err) {
        return String((err as { stderr?: string }).stderr);
      }
      throw new Error(`helm template ${args.join(' ')} succeeded`);
    };
    const find = (objects: Rendered[], kind: string, name: string): Rendered | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const roles = (objects: Rendered[]): string[] => objects.filter((o) => /Role/.test(o.kind)).map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
    const managerArgs = (objects: Rendered[]): string[] => find(objects, 'Deployment', DEPLOY_NAME)!.spec.template.spec.containers[0].args as string[];

    beforeAll(async () => {
      await kubectl(['create', 'namespace', WATCHED]).catch((err: Error) => {
        if (!err.message.includes('AlreadyExists')) throw err;
      });
    });

    it('spreads the replicas one per node; nodeSpread.whenUnsatisfiable relaxes it, and a bad value is refused naming it', () => {
      const spread = (objects: Rendered[]): unknown => find(objects, 'Deployment', DEPLOY_NAME)!.spec.template.spec.topologySpreadConstraints;
      expect(spread(rendered(helmTemplate()))).toEqual([
        expect.objectContaining({ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Honor' }),
      ]);
      expect(spread(rendered(helmTemplate('--set', 'nodeSpread.whenUnsatisfiable=ScheduleAnyway')))).toEqual([expect.objectContaining({ whenUnsatisfiable: 'ScheduleAnyway' })]);
      expect(helmError('--set', 'nodeSpread.whenUnsatisfiable=Sometimes')).toMatch(/nodeSpread.*whenUnsatisfiable/);
    });

    it('watchNamespace: a Role and RoleBinding there grant the namespaced rules, the ClusterRole only cluster-scoped ones; the objects pass server-side validation', async () => {
      const manifests = helmTemplate('--set', `watchNamespace=${WATCHED}`);
      const objects = rendered(manifests);
      expect(roles(objects)).toEqual(roles(rbacObjects({ watchNamespace: WATCHED }) as Rendered[]));
      expect(flattenRules(find(objects, 'ClusterRole', DEPLOY_NAME)!.rules!)).toEqual(flattenRules(watched.clusterRole));
      expect(flattenRules(objects.find((o) => o.kind === 'Role' && o.metadata.namespace === WATCHED)!.rules!)).toEqual(flattenRules(watched.watchedNamespaceRole));
      expect(objects.find((o) => o.kind === 'RoleBinding' && o.metadata.namespace === WATCHED)!.subjects).toEqual([{ kind: 'ServiceAccount', name: DEPLOY_NAME, namespace: NAMESPACE }]);
      expect(managerArgs(objects)).toContain(`--namespace=${WATCHED}`);
      const out = await serverDryRun(manifests);
      expect(out.trim().split('\n')).toHaveLength(objects.length);
      expect(helmError('--set', 'watchNamespace=Not_A_Namespace')).toMatch(/watchNamespace/);
    }, 600_000);

    it('webhook.existingCertSecret: no role for the Secret, the webhook configurations or the CRDs; every namespace still granted by the ClusterRole', () => {
      const objects = rendered(helmTemplate('--set', 'webhook.existingCertSecret=my-tls'));
      expect(roles(objects)).toEqual(roles(rbacObjects({ selfManagedCertificates: false }) as Rendered[]));
      expect(flattenRules(find(objects, 'ClusterRole', DEPLOY_NAME)!.rules!)).toEqual(flattenRules(everywhere.clusterRole));
      const granted = objects.filter((o) => o.rules).flatMap((o) => flattenRules(o.rules!));
      expect(granted.filter((l) => /secrets|webhookconfigurations|customresourcedefinitions/.test(l))).toEqual([]);
      expect(managerArgs(objects)).toContain('--webhook-cert-dir=/var/run/cloneset-suite/webhook-certs');
    });

    it('webhook.clientCA.configMap: the ConfigMap\'s key mounted and passed as --webhook-client-ca-file, beside existingCertSecret; off by default; the Deployment passes server-side validation', async () => {
      const deployment = (objects: Rendered[]) => find(objects, 'Deployment', DEPLOY_NAME)!;
      const off = deployment(rendered(helmTemplate()));
      expect((off.spec.template.spec.containers[0].args as string[]).filter((a) => a.startsWith('--webhook-client-ca-file'))).toEqual([]);
      expect(off.spec.template.spec.volumes).toBeUndefined();
      const on = deployment(rendered(helmTemplate('--set', 'webhook.clientCA.configMap=apiserver-client-ca', '--set', 'webhook.clientCA.key=front-proxy.crt', '--set', 'webhook.existingCertSecret=my-tls')));
      const pod = on.spec.template.spec;
      expect(pod.containers[0].args).toContain('--webhook-client-ca-file=/var/run/cloneset-suite/webhook-client-ca/ca.crt');
      expect(pod.containers[0].volumeMounts).toEqual([
        { name: 'webhook-certs', mountPath: '/var/run/cloneset-suite/webhook-certs', readOnly: true },
        { name: 'webhook-client-ca', mountPath: '/var/run/cloneset-suite/webhook-client-ca', readOnly: true },
      ]);
      expect(pod.volumes).toEqual([
        { name: 'webhook-certs', secret: { secretName: 'my-tls' } },
        { name: 'webhook-client-ca', configMap: { name: 'apiserver-client-ca', items: [{ key: 'front-proxy.crt', path: 'ca.crt' }] } },
      ]);
      expect(await kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(on))).toMatch(/created|configured|unchanged/);
    }, 600_000);

    it('kustomize: the watch-namespace example and the external-certificates component render the same split; the objects pass server-side validation', async () => {
      const manifests = await kubectl(['kustomize', path.join(repoRoot, 'deploy/kustomize/examples/watch-namespace')]);
      const objects = rendered(manifests);
      const example = rendered(readFileSync(path.join(repoRoot, 'deploy/kustomize/examples/watch-namespace/watch-namespace.yaml'), 'utf8'))[0]!;
      const target = (example as unknown as { data: { namespace: string } }).data.namespace;
      expect(objects.some((o) => o.kind === 'ConfigMap')).toBe(false);
      expect(flattenRules(find(objects, 'ClusterRole', DEPLOY_NAME)!.rules!)).toEqual(flattenRules(watched.clusterRole));
      expect(flattenRules(objects.find((o) => o.kind === 'Role' && o.metadata.namespace === target)!.rules!)).toEqual(flattenRules(watched.watchedNamespaceRole));
      const container = find(objects, 'Deployment', DEPLOY_NAME)!.spec.template.spec.containers[0];
      expect(container.args).toContain('--namespace=$(WATCH_NAMESPACE)');
      expect(container.env).toContainEqual({ name: 'WATCH_NAMESPACE', value: target });
      // Both components at once, the namespace made the test's.
      const dir = mkdtempSync(path.join(tmpdir(), 'kustomize-'));
      const rel = (p: string): string => path.relative(dir, path.join(repoRoot, p));
      writeFileSync(path.join(dir, 'watch-namespace.yaml'), stringify({ ...example, data: { namespace: WATCHED } }));
      writeFileSync(
        path.join(dir, 'kustomization.yaml'),
        stringify({ resources: [rel('deploy/kustomize/base'), 'watch-namespace.yaml'], components: [rel('deploy/kustomize/components/watch-namespace'), rel('deploy/kustomize/components/external-certificates')] }),
      );
      const both = await kubectl(['kustomize', dir]);
      const bothObjects = rendered(both);
      expect(roles(bothObjects)).toEqual(roles(rbacObjects({ watchNamespace: WATCHED, selfManagedCertificates: false }) as Rendered[]));
      expect(find(bothObjects, 'Deployment', DEPLOY_NAME)!.spec.template.spec.volumes).toEqual([{ name: 'webhook-certs', secret: { secretName: 'cloneset-suite-webhook-tls' } }]);
      const out = await serverDryRun(both);
      expect(out.trim().split('\n')).toHaveLength(bothObjects.length);
    }, 600_000);

    it('NetworkPolicies: ingress restricted to the apiserver\'s CIDRs and given peers, egress to DNS, the apiserver and the rule servers, each off by default', async () => {
      const policies = (objects: Rendered[]): Record<string, Rendered> => Object.fromEntries(objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => [o.metadata.name, o]));
      const plain = policies(rendered(helmTemplate()));
      expect(Object.keys(plain)).toEqual([DEPLOY_NAME]);
      const openPorts = (plain[DEPLOY_NAME]!.spec.ingress as { from?: unknown; ports: { port: string }[] }[]).filter((r) => !r.from).flatMap((r) => r.ports.map((p) => p.port));
      expect(openPorts.sort()).toEqual(['health', 'webhook']);

      const scraper = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };
      const networkPolicy = { apiserverCIDRs: ['10.0.0.10/32', 'fd00::10/128'], ingress: { restricted: true, probeAndMetricsFrom: [scraper] }, egress: { enabled: true, transitionRuleWebhookCIDRs: ['10.244.0.0/16'] } };
      const manifests = helmTemplate('--set-json', `networkPolicy=${JSON.stringify(networkPolicy)}`);
      const strict = policies(rendered(manifests));
      expect(strict[DEPLOY_NAME]!.spec.ingress).toEqual([
        { from: [{ ipBlock: { cidr: '10.0.0.10/32' } }, { ipBlock: { cidr: 'fd00::10/128' } }], ports: [{ port: 'webhook', protocol: 'TCP' }] },
        { from: [scraper], ports: [{ port: 'health', protocol: 'TCP' }, { port: 'metrics', protocol: 'TCP' }] },
      ]);
      expect(strict[`${DEPLOY_NAME}-egress`]!.spec).toEqual({
        podSelector: strict[DEPLOY_NAME]!.spec.podSelector,
        policyTypes: ['Egress'],
        egress: [
          { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] },
          { to: [{ ipBlock: { cidr: '10.0.0.10/32' } }, { ipBlock: { cidr: 'fd00::10/128' } }], ports: [{ port: 443, protocol: 'TCP' }, { port: 6443, protocol: 'TCP' }] },
          { to: [{ ipBlock: { cidr: '10.244.0.0/16' } }] },
        ],
      });
      const out = await serverDryRun(manifests);
      expect(out).toMatch(/networkpolicy.networking.k8s.io\/cloneset-suite-controller-manager-egress serverside-applied/);
      expect(helmError('--set', 'networkPolicy.ingress.restricted=true')).toContain('networkPolicy.ingress.restricted needs networkPolicy.apiserverCIDRs');
      expect(helmError('--set', 'networkPolicy.egress.enabled=true')).toContain('networkPolicy.egress.enabled needs networkPolicy.apiserverCIDRs');
    }, 600_000);
  });
});
