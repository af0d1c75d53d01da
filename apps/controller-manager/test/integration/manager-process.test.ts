// The built controller-manager as a process against the local cluster (or E2E_KUBECONFIG):
// probes go ready, /metrics shows controller-runtime names, the webhooks (URL mode, caBundle
// injected by the manager) default and refuse CloneSets and PodTransitionRules, and SIGTERM
// exits 0 within the grace period after writing the buffered Events and releasing the lease.
// The process runs as a ServiceAccount bound to exactly the RBAC that deploy/ grants (rendered
// by the same code), so a call the permissions do not declare fails this suite.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes, X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { createTestNamespace, eventually, freePort, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { splitPemBundle } from '../../src/certs/x509.ts';
import { loadConfig } from '../../src/config/load.ts';
import { rbacObjects } from '../../src/deploy/render.ts';
import { installCrds, installWebhookConfigurations, toYaml, urlModeConfigurations } from '../../src/local-install.ts';
import { spawnManager, type ManagerProcess } from '../support/process.ts';

interface Lease {
  spec?: { holderIdentity?: string };
}

const suffix = randomBytes(3).toString('hex');
const configurationName = `cm-test-${suffix}`;
const leaseName = `cm-test-${suffix}`;
const identityName = `cm-test-${suffix}`;

/**
 * A kubeconfig for the ServiceAccount, bound to the deploy RBAC rendered for the test's names and
 * for its one watched namespace (--namespace): namespaced rules in a Role there, the ClusterRole
 * cut to cluster-scoped ones.
 */
async function serviceAccountKubeconfig(namespace: string): Promise<string> {
  const rbac = rbacObjects({
    namespace,
    name: identityName,
    watchNamespace: namespace,
    names: { leaseName, secretName: `${configurationName}-certs`, webhookConfigurationName: configurationName },
  });
  await kubectl(['apply', '-f', '-'], toYaml([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: identityName, namespace } }, ...rbac]));
  const token = (await kubectl(['create', 'token', identityName, '-n', namespace, '--duration=1h'])).trim();
  const view = JSON.parse(await kubectl(['config', 'view', '--raw', '--minify', '-o', 'json'])) as { clusters: { cluster: Record<string, unknown> }[] };
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: view.clusters[0]!.cluster }],
    users: [{ name: identityName, user: { token } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: identityName } }],
    'current-context': 'test',
  };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cm-sa-')), 'kubeconfig');
  writeFileSync(file, JSON.stringify(kubeconfig));
  return file;
}

const DAY = 86_400_000;

/** The certificate the webhook port presents, as the apiserver would see it. */
function servedCertificate(port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(new X509Certificate(socket.getPeerCertificate().raw));
      socket.end();
    });
    socket.on('error', reject);
  });
}

async function httpText(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

function expectRefusal(err: unknown, ...fragments: string[]): void {
  expect(err).toBeInstanceOf(Error);
  for (const f of fragments) expect((err as Error).message).toContain(f);
}

describe('controller-manager process', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: ManagerProcess;
  let ports: { metrics: number; probes: number; webhook: number };
  let args: string[];

  beforeAll(async () => {
    expect(testKubeconfigPath()).not.toBe('');
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('cm');
    const kc = await serviceAccountKubeconfig(ns.name);
    ports = { metrics: await freePort(), probes: await freePort(), webhook: await freePort() };
    args = [
      `--kubeconfig=${kc}`,
      // Controllers watch only this namespace: suites sharing the cluster keep their objects.
      `--namespace=${ns.name}`,
      `--leader-election-namespace=${ns.name}`,
      `--leader-election-id=${leaseName}`,
      '--leader-election-lease-duration=6s',
      '--leader-election-renew-deadline=4s',
      '--leader-election-retry-period=1s',
      `--metrics-bind-address=127.0.0.1:${ports.metrics}`,
      `--health-probe-bind-address=127.0.0.1:${ports.probes}`,
      '--webhook-host=127.0.0.1',
      `--webhook-port=${ports.webhook}`,
      `--webhook-url-base=https://127.0.0.1:${ports.webhook}`,
      `--webhook-configuration-name=${configurationName}`,
      `--webhook-secret-name=${configurationName}-certs`,
      '--transition-rule-webhook-allowed-prefixes=https://hooks.example.com/,https://transition-hooks.example.com/',
      '--graceful-shutdown-timeout=10s',
    ];
    const loaded = loadConfig({ argv: args, env: {}, knownControllers: [] });
    if (loaded.kind !== 'config') throw new Error('unexpected help');
    // Scoped to the test namespace: other suites sharing the cluster never reach this webhook.
    await installWebhookConfigurations(
      (a, input) => kubectl(a, input),
      urlModeConfigurations(loaded.config, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns.name } } }),
    );
    manager = spawnManager(args);
  });

  afterAll(async () => {
    if (manager?.child.exitCode === null) {
      manager.child.kill('SIGKILL');
      await manager.exited;
    }
    await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', configurationName, '--ignore-not-found']).catch(() => undefined);
    await kubectl(['delete', 'clusterrole,clusterrolebinding', identityName, `${identityName}-certificates`, '--ignore-not-found']).catch(() => undefined);
    await ns?.remove();
  });

  it('becomes ready: caches synced, certificates loaded', async () => {
    await eventually('/readyz', async () => (await httpText(`http://127.0.0.1:${ports.probes}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000 });
    expect((await httpText(`http://127.0.0.1:${ports.probes}/healthz`)).body).toBe('ok');
    const verbose = await httpText(`http://127.0.0.1:${ports.probes}/readyz?verbose`);
    expect(verbose.body).toContain('[+]informer-sync ok');
    expect(verbose.body).toContain('[+]cache-fresh ok');
    expect(verbose.body).toContain('[+]webhook-certificates ok');
  });

  it('leads: holds the lease', async () => {
    const lease = await eventually('the lease held', async () => {
      const l = await getJson<Lease>(['lease', leaseName, '-n', ns.name]);
      return l?.spec?.holderIdentity ? l : undefined;
    });
    expect(lease.spec?.holderIdentity).toMatch(/_/);
  });

  it('injects the caBundle into its webhook configurations', async () => {
    for (const kind of ['mutatingwebhookconfiguration', 'validatingwebhookconfiguration']) {
      await eventually(`${kind} caBundle`, async () => {
        const cfg = await getJson<{ webhooks: { clientConfig: { caBundle?: string } }[] }>([kind, configurationName]);
        return cfg?.webhooks.every((w) => (w.clientConfig.caBundle ?? '') !== '') ?? false;
      });
    }
  });

  it('defaults a CloneSet applied with kubectl', async () => {
    const manifest = [
      'apiVersion: apps.kruise.io/v1alpha1',
      'kind: CloneSet',
      'metadata: {name: sample}',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: sample}}',
      '  template:',
      '    metadata: {labels: {app: sample}}',
      '    spec: {containers: [{name: main, image: "nginx:1.27"}]}',
    ].join('\n');
    await eventually('the webhook admits a valid CloneSet', async () => {
      await kubectl(['apply', '-n', ns.name, '-f', '-'], manifest);
      return true;
    });
    // v1alpha1 by name: the same with or without the v1beta1 opt-in (which would keep these fields under rollingUpdate).
    const cs = await getJson<{ spec: { updateStrategy: Record<string, unknown>; revisionHistoryLimit: number; template: { spec: { containers: { imagePullPolicy?: string }[] } } } }>([
      'clonesets.v1alpha1.apps.kruise.io',
      'sample',
      '-n',
      ns.name,
    ]);
    expect(cs?.spec.updateStrategy).toMatchObject({ type: 'ReCreate', maxUnavailable: '20%', partition: 0, maxSurge: 0 });
    expect(cs?.spec.template.spec.containers[0]?.imagePullPolicy).toBe('Always');
  });

  it('reconciles the CloneSet: pods created and Ready, status written, as its ServiceAccount', async () => {
    let lastStatus: unknown;
    const status = await eventually('2 ready replicas in status', async () => {
      const cs = await getJson<{ status?: { readyReplicas?: number; replicas?: number; updateRevision?: string } }>(['clone', 'sample', '-n', ns.name]);
      lastStatus = cs?.status;
      return cs?.status?.readyReplicas === 2 ? cs.status : undefined;
    }, { timeoutMs: 60_000 }).catch(async (err: unknown) => {
      // Say what was seen: the status, the pods, and what the manager logged above info.
      const pods = await kubectl(['get', 'pods', '-n', ns.name, '-o', 'wide']).catch((e: unknown) => String(e));
      const complaints = manager.output().split('\n').filter((l) => /"level":"(warn|error|fatal)"/.test(l)).slice(-10);
      throw new Error(`${(err as Error).message}\nlast status: ${JSON.stringify(lastStatus)}\npods:\n${pods}\nmanager warnings:\n${complaints.join('\n')}`, { cause: err });
    });
    expect(status.replicas).toBe(2);
    const pods = await getJson<{ items: { metadata: { name: string; labels: Record<string, string> } }[] }>(['pods', '-n', ns.name, '-l', 'app=sample']);
    expect(pods?.items.map((p) => p.metadata.labels['controller-revision-hash'])).toEqual([status.updateRevision, status.updateRevision]);
  });

  it('refuses an invalid CloneSet, naming the fields', async () => {
    const manifest = [
      'apiVersion: apps.kruise.io/v1alpha1',
      'kind: CloneSet',
      'metadata: {name: broken}',
      'spec:',
      '  selector: {matchLabels: {app: broken}}',
      '  template:',
      '    metadata: {labels: {app: other}}',
      '    spec: {containers: [{name: main, image: "nginx:1.27"}]}',
      '  updateStrategy: {type: InPlaceOnly, maxSurge: 1}',
    ].join('\n');
    const err = await kubectl(['apply', '-n', ns.name, '-f', '-'], manifest).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(err, 'is invalid', 'spec.template.metadata.labels', 'spec.updateStrategy.maxSurge');
    // Through the API: 422 Invalid with field causes.
    const status = await kubectl(['create', '--raw', `/apis/apps.kruise.io/v1alpha1/namespaces/${ns.name}/clonesets`, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'broken' },
      spec: { selector: { matchLabels: { app: 'broken' } }, template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'main', image: 'x' }] } } },
    })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(status, 'spec.template.metadata.labels');
  });

  it('refuses a podsToDelete entry naming a missing pod', async () => {
    const err = await kubectl(['patch', 'clone', 'sample', '-n', ns.name, '--type=merge', '-p', '{"spec":{"scaleStrategy":{"podsToDelete":["no-such-pod"]}}}']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(err, 'spec.scaleStrategy.podsToDelete[0]', 'no-such-pod');
  });

  it('accepts a podsToDelete entry naming one of its own pods, answered from the pod cache', async () => {
    const pods = await getJson<{ items: { metadata: { name: string } }[] }>(['pods', '-n', ns.name, '-l', 'app=sample']);
    const victim = pods?.items[0]?.metadata.name ?? '';
    const dryRun = await kubectl(['patch', 'clone', 'sample', '-n', ns.name, '--dry-run=server', '--type=merge', '-p', JSON.stringify({ spec: { scaleStrategy: { podsToDelete: [victim] } } })]);
    expect(dryRun).toContain('patched');
  });

  it('refuses kubectl scale beyond the replicas bound through clonesets/scale, naming spec.replicas', async () => {
    const err = await kubectl(['scale', 'clone', 'sample', '-n', ns.name, '--replicas=2147483647']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(err, 'spec.replicas', 'less than or equal to 100000');
    await kubectl(['scale', 'clone', 'sample', '-n', ns.name, '--replicas=2', '--dry-run=server']);
  });

  it('defaults PodTransitionRules and refuses webhook URLs outside the allow-list', async () => {
    const rule = (name: string, url: string): string =>
      [
        'apiVersion: apps.kusionstack.io/v1alpha1',
        'kind: PodTransitionRule',
        `metadata: {name: ${name}}`,
        'spec:',
        '  selector: {matchLabels: {app: sample}}',
        '  rules:',
        '  - name: ask',
        '    stage: PreCheck',
        `    webhook: {clientConfig: {url: "${url}"}}`,
      ].join('\n');
    await kubectl(['apply', '-n', ns.name, '-f', '-'], rule('allowed', 'https://hooks.example.com/check'));
    const ptr = await getJson<{ spec: { rules: { webhook: { failurePolicy?: string } }[] } }>(['podtransitionrule', 'allowed', '-n', ns.name]);
    expect(ptr?.spec.rules[0]?.webhook.failurePolicy).toBe('Fail');
    const err = await kubectl(['apply', '-n', ns.name, '-f', '-'], rule('outside', 'http://10.0.0.1/internal')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(err, 'spec.rules[0].webhook.clientConfig.url');
  });

  it('serves /mutate-pod and /validate-pod: a controlled pod gets the gate and goes service-available', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', path.join(repoRoot, 'examples/podopslifecycle-pod.yaml')]);
    const pod = await eventually('ops-demo service-available', async () => {
      const p = await getJson<{ metadata: { labels: Record<string, string> }; spec: { readinessGates?: unknown[] } }>(['pod', 'ops-demo', '-n', ns.name]);
      return p?.metadata.labels['podopslifecycle.kusionstack.io/service-available'] ? p : undefined;
    }, { timeoutMs: 60_000 });
    expect(pod.spec.readinessGates).toEqual([{ conditionType: 'pod.kusionstack.io/service-ready' }]);
    const err = await kubectl(['label', 'pod', 'ops-demo', '-n', ns.name, 'pre-check.podopslifecycle.kusionstack.io=1']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectRefusal(err, 'failed to validate PodOpsLifecycleWebhook, invalid label pre-check.podopslifecycle.kusionstack.io');
  });

  it('admits every example (server-side dry run through the webhooks)', async () => {
    const dir = path.join(repoRoot, 'examples');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
      const out = await kubectl(['apply', '--dry-run=server', '-n', ns.name, '-f', path.join(dir, f)]);
      expect(out).toContain('(server dry run)');
    }
  });

  it('serves controller-runtime metric names on /metrics', async () => {
    const { status, body } = await httpText(`http://127.0.0.1:${ports.metrics}/metrics`);
    expect(status).toBe(200);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'controller_runtime_max_concurrent_reconciles',
      'workqueue_depth',
      'workqueue_adds_total',
      'rest_client_requests_total',
    ]) {
      expect(body).toContain(`# TYPE ${name} `);
    }
    expect(body).toContain(`leader_election_master_status{name="${leaseName}"} 1`);
    expect(body).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/validate-apps-kruise-io-v1alpha1-cloneset",code="200"\} [1-9]/);
    for (const hook of ['mutate-pod', 'validate-pod']) {
      expect(body).toMatch(new RegExp(`controller_runtime_webhook_requests_total\\{webhook="/${hook}",code="200"\\} [1-9]`));
      expect(body).toContain(`controller_runtime_webhook_latency_seconds_count{webhook="/${hook}"}`);
    }
    expect(body).toMatch(/controller_runtime_reconcile_total\{controller="podopslifecycle",result="success"\} [1-9]/);
  });

  it('rotates a CA that is due and the apiserver accepts the newly served chain', async () => {
    manager.child.kill('SIGTERM');
    expect(await manager.exited).toBe(0);
    // Issued 250 days ago with a 300-day CA: still trusted, but due for renewal on the next pass.
    const old = (await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 30 * DAY, now: new Date(Date.now() - 250 * DAY) })).bundle;
    const data = { 'ca.crt': old.caCert, 'ca.key': old.caKey, 'tls.crt': old.tlsCert, 'tls.key': old.tlsKey, 'ca-bundle.crt': old.caBundle };
    await kubectl(['delete', 'secret', `${configurationName}-certs`, '-n', ns.name, '--ignore-not-found']);
    await kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: `${configurationName}-certs`, namespace: ns.name },
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
      }),
    );
    manager = spawnManager(args);
    await eventually('/readyz after the restart', async () => (await httpText(`http://127.0.0.1:${ports.probes}/readyz`).catch(() => undefined))?.status === 200, { timeoutMs: 60_000 });

    const oldCa = new X509Certificate(old.caCert);
    const trusted = await eventually('the rotated caBundle injected', async () => {
      const cfg = await getJson<{ webhooks: { clientConfig: { caBundle?: string } }[] }>(['mutatingwebhookconfiguration', configurationName]);
      const pems = splitPemBundle(Buffer.from(cfg?.webhooks[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8'));
      return pems.length === 2 ? pems.map((p) => new X509Certificate(p)) : undefined;
    });
    expect(trusted[0]!.fingerprint256).not.toBe(oldCa.fingerprint256);
    expect(trusted[1]!.fingerprint256).toBe(oldCa.fingerprint256);
    const served = await servedCertificate(ports.webhook);
    expect(served.checkIssued(trusted[0]!) && served.verify(trusted[0]!.publicKey)).toBe(true);

    // A server-side dry run goes through the mutating webhook: the apiserver verified the new chain.
    const manifest = JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'after-rotation', namespace: ns.name },
      spec: { replicas: 1, selector: { matchLabels: { app: 'r' } }, template: { metadata: { labels: { app: 'r' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } } },
    });
    const admitted = JSON.parse(await kubectl(['apply', '--dry-run=server', '-o', 'json', '-f', '-'], manifest)) as { spec: { updateStrategy?: { maxUnavailable?: string } } };
    expect(admitted.spec.updateStrategy?.maxUnavailable).toBe('20%');
  });

  it('on SIGTERM writes the buffered Event repeats, releases the lease and exits 0 within the grace period', async () => {
    // Pods that can never be scheduled stay unavailable, so every reconcile of this CloneSet
    // records the same ScaleUpLimited Warning: the recorder folds the repeats into a series it
    // writes every 30 s, or when the manager flushes it at shutdown.
    const manifest = [
      'apiVersion: apps.kruise.io/v1alpha1',
      'kind: CloneSet',
      'metadata: {name: limited}',
      'spec:',
      '  replicas: 3',
      '  selector: {matchLabels: {app: limited}}',
      '  scaleStrategy: {maxUnavailable: 1}',
      '  template:',
      '    metadata: {labels: {app: limited}}',
      '    spec: {nodeSelector: {cloneset-suite.test/no-such-node: "true"}, containers: [{name: main, image: "nginx:1.27"}]}',
    ].join('\n');
    await kubectl(['apply', '-n', ns.name, '-f', '-'], manifest);
    const aggregated = async (): Promise<number> => {
      const { body } = await httpText(`http://127.0.0.1:${ports.metrics}/metrics`);
      return Number(/^event_recorder_aggregated_total\{reason="ScaleUpLimited"\} (\d+)/m.exec(body)?.[1] ?? 0);
    };
    let poke = 0;
    const repeats = await eventually('a repeated ScaleUpLimited Event buffered', async () => {
      // Each change of the CloneSet is one more reconcile, one more occurrence.
      await kubectl(['annotate', 'clone', 'limited', '-n', ns.name, `cloneset-suite.test/poke=${++poke}`, '--overwrite']);
      const n = await aggregated();
      return n >= 2 ? n : undefined;
    });
    const limitedEvents = async (): Promise<{ series?: { count: number } }[]> => {
      const list = await getJson<{ items: { reason?: string; regarding?: { name?: string }; series?: { count: number } }[] }>(['events.events.k8s.io', '-n', ns.name]);
      return (list?.items ?? []).filter((e) => e.reason === 'ScaleUpLimited' && e.regarding?.name === 'limited');
    };
    const written = (events: { series?: { count: number } }[]): number => Math.max(0, ...events.map((e) => e.series?.count ?? 1));
    // Not written yet: the next periodic flush is up to 30 s away.
    expect(written(await limitedEvents())).toBeLessThan(repeats + 1);

    const started = Date.now();
    manager.child.kill('SIGTERM');
    expect(await manager.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The recorder was flushed before exit: the series counts every occurrence seen before SIGTERM.
    expect(written(await limitedEvents())).toBeGreaterThanOrEqual(repeats + 1);
    const lease = await getJson<Lease>(['lease', leaseName, '-n', ns.name]);
    expect(lease?.spec?.holderIdentity ?? '').toBe('');
    expect(manager.output()).toContain('"msg":"released the lease"');
  });
});
