// PodOpsLifecycle on the local cluster: the controller-manager process (podopslifecycle
// controller only) serves /mutate-pod and /validate-pod in URL mode, scoped to the test
// namespace. The test plays the operating controllers (through the SDK) and a cooperation
// controller that holds a prot. finalizer while the pod is online.
import path from 'node:path';
import { createTestNamespace, eventually, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { OpsLifecycleClient, allowOps, type OperationAdapter, type Pod } from '@cloneset-suite/podopslifecycle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../src/local-install.ts';
import { releaseNamespace } from '../support/suite-namespace.ts';
import { startUrlModeManager } from '../support/url-mode-manager.ts';

const PROT = 'prot.podopslifecycle.kusionstack.io/test-traffic';
const CONTROL = { 'kusionstack.io/control': 'true' };
const lifecycleKeys = (pod: Pod | undefined): string[] =>
  Object.keys(pod?.metadata?.labels ?? {}).filter((k) => /(^|\.)podopslifecycle\.kusionstack\.io\//.test(k) && !k.startsWith('podopslifecycle.kusionstack.io/'));
const condition = (pod: Pod | undefined, type: string): string | undefined => pod?.status?.conditions?.find((c) => c.type === type)?.status;

interface Events {
  items: { reason: string; note?: string; regarding: { name: string } }[];
}

describe('PodOpsLifecycle on a cluster', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let stopManager: (() => Promise<void>) | undefined;
  let client: KubeClient;
  let ops: OpsLifecycleClient;
  let metricsPort: number;
  const stopCooperation: (() => void)[] = [];

  const getPod = (name: string): Promise<Pod | undefined> => getJson<Pod>(['pod', name, '-n', ns.name]);

  async function createPod(name: string, labels: Record<string, string>, annotations: Record<string, string> = {}): Promise<void> {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels, annotations },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    }));
  }

  const serviceAvailable = (name: string, timeoutMs = 60_000): Promise<Pod> =>
    eventually(`${name} service-available with no lifecycle label`, async () => {
      const pod = await getPod(name);
      const ok = pod?.metadata?.labels?.['podopslifecycle.kusionstack.io/service-available'] !== undefined && lifecycleKeys(pod).length === 0;
      return ok ? pod : undefined;
    }, { timeoutMs });

  /**
   * A cooperation controller in the spirit of Kuperator's ResourceConsist: traffic on and the prot.
   * finalizer added while the pod is Ready and service-ready; finalizer removed otherwise.
   */
  function cooperate(name: string): void {
    let stopped = false;
    stopCooperation.push(() => (stopped = true));
    void (async () => {
      while (!stopped) {
        const pod = await getPod(name).catch(() => undefined);
        if (pod && !pod.metadata?.deletionTimestamp) {
          const online = condition(pod, 'Ready') === 'True' && condition(pod, 'pod.kusionstack.io/service-ready') === 'True';
          const finalizers = pod.metadata?.finalizers ?? [];
          const want = online ? [...new Set([...finalizers, PROT])] : finalizers.filter((f) => f !== PROT);
          if (want.length !== finalizers.length) {
            await kubectl(['patch', 'pod', name, '-n', ns.name, '--type=json', '-p', JSON.stringify([
              { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
              { op: 'add', path: '/metadata/finalizers', value: want },
            ])]).catch(() => undefined);
          }
        }
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
  }

  /** The operating controller's work: a write guarded by the version it saw without protection. */
  async function operate(name: string, adapter: OperationAdapter): Promise<void> {
    await eventually(`${adapter.id} allowed to operate on ${name}`, async () => {
      const pod = await getPod(name);
      if (!pod || !allowOps(pod, adapter, Date.now()).allowed) return false;
      expect(pod.metadata?.finalizers ?? []).not.toContain(PROT);
      await kubectl(['patch', 'pod', name, '-n', ns.name, '--type=json', '-p', JSON.stringify([
        { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
        { op: 'add', path: `/metadata/annotations`, value: { ...(pod.metadata?.annotations ?? {}), [`work.example.com/${adapter.id}`]: 'done' } },
      ])]);
      return true;
    }, { timeoutMs: 60_000 });
  }

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('pol');
    const started = await startUrlModeManager(ns.name, 'pol-test', ['--controllers=podopslifecycle', '--leader-elect=false']);
    stopManager = started.stop;
    metricsPort = started.metricsPort;
    // Ready once the caBundle is injected: a controlled pod is admitted through both webhooks.
    await eventually('the pod webhooks answer', async () => {
      await kubectl(['apply', '--dry-run=server', '-n', ns.name, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', labels: CONTROL }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
      return true;
    }, { timeoutMs: 60_000 });
    // The employer of the cooperation controller's finalizer: selects app=web.
    await kubectl(['create', 'service', 'clusterip', 'web', '-n', ns.name, '--tcp=80:80']);
    client = new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()) });
    ops = new OpsLifecycleClient(client);
  });

  afterAll(async () => {
    for (const stop of stopCooperation) stop();
    await stopManager?.();
    if (ns) await releaseNamespace(ns);
  });

  it('a controlled pod created directly gets the gate and becomes service-available; an uncontrolled one is never touched', async () => {
    await createPod('direct', { ...CONTROL, app: 'direct' });
    await createPod('plain', { app: 'plain' });
    const pod = await serviceAvailable('direct');
    expect(pod.spec?.readinessGates).toEqual([{ conditionType: 'pod.kusionstack.io/service-ready' }]);
    expect(pod.metadata?.labels?.['podopslifecycle.cloneset-suite.io/phase']).toBe('ServiceAvailable');
    expect(condition(pod, 'pod.kusionstack.io/service-ready')).toBe('True');
    expect(pod.status?.conditions?.find((c) => c.type === 'pod.kusionstack.io/service-ready')?.message).toBe('updated by PodOpsLifecycle');
    expect(condition(pod, 'Ready')).toBe('True');
    // Settled: no further write, from the controller or anyone (level-triggered, idempotent).
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await getPod('direct'))?.metadata?.resourceVersion).toBe(pod.metadata?.resourceVersion);
    const plain = await eventually('plain Ready', async () => {
      const p = await getPod('plain');
      return condition(p, 'Ready') === 'True' ? p : undefined;
    });
    expect(plain.spec?.readinessGates).toBeUndefined();
    expect(lifecycleKeys(plain)).toEqual([]);
    expect(Object.keys(plain.metadata?.labels ?? {}).filter((k) => k.includes('podopslifecycle'))).toEqual([]);
    expect(condition(plain, 'pod.kusionstack.io/service-ready')).toBeUndefined();
  });

  it('runs one operation through every phase; the work never happens under the protection finalizer', async () => {
    await createPod('web', { ...CONTROL, app: 'web' }, { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { [`Service/${ns.name}/web`]: PROT } }) });
    cooperate('web');
    const ready = await serviceAvailable('web');
    expect(ready.metadata?.finalizers).toContain(PROT);

    const adapter: OperationAdapter = { id: 'test-update', type: 'update', allowMultiType: true };
    const begun = await ops.begin(ns.name, 'web', adapter);
    expect(begun.metadata?.labels?.['pre-check.podopslifecycle.kusionstack.io/test-update']).toMatch(/^[0-9]{19}$/);
    await operate('web', adapter);
    await ops.finish(ns.name, 'web', adapter);
    const done = await serviceAvailable('web');
    expect(done.metadata?.finalizers).toContain(PROT);
    expect(done.metadata?.annotations?.['work.example.com/test-update']).toBe('done');

    const reasons = await eventually('every phase Event', async () => {
      const events = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'regarding.name=web']);
      const seen = new Set(events?.items.map((e) => e.reason));
      const want = ['PreCheck', 'Preparing', 'Operating', 'PostCheck', 'Completing', 'ServiceAvailable', 'ServiceReady'];
      return want.every((r) => seen.has(r)) ? events! : undefined;
    });
    expect(reasons.items.find((e) => e.reason === 'Operating')?.note).toMatch(/^lifecycle test-update \(type update\) entered Operating at [0-9]{19}/);
  });

  it('drops the expected finalizer of a Service that is gone, then goes service-available', async () => {
    await createPod('orphaned', { ...CONTROL, app: 'orphaned' }, {
      'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { [`Service/${ns.name}/gone`]: PROT, [`Service/${ns.name}/web`]: `${PROT}-web` } }),
    });
    // `web` exists but selects app=web, not this pod: dirty too. Both entries go, then the pod goes online.
    const pod = await serviceAvailable('orphaned');
    expect(JSON.parse(pod.metadata?.annotations?.['pod.kusionstack.io/available-conditions'] ?? '{}')).toEqual({ expectedFinalizers: {} });
    await eventually('ExpectedFinalizersCleaned Event', async () => {
      const events = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'regarding.name=orphaned']);
      return events?.items.some((e) => e.reason === 'ExpectedFinalizersCleaned') ?? false;
    });
  });

  it('two operating ids wait for each other at the barrier', async () => {
    await createPod('pair', { ...CONTROL });
    await serviceAvailable('pair');
    const a: OperationAdapter = { id: 'op-a', type: 'update', allowMultiType: true };
    const b: OperationAdapter = { id: 'op-b', type: 'restart', allowMultiType: true };
    await ops.begin(ns.name, 'pair', a);
    await ops.begin(ns.name, 'pair', b);
    await operate('pair', a);
    await operate('pair', b);
    await ops.finish(ns.name, 'pair', a);
    // a stays finished-but-waiting (operate kept, no operated) while b still operates.
    await new Promise((r) => setTimeout(r, 2_000));
    const waiting = await getPod('pair');
    expect(waiting?.metadata?.labels?.['operate.podopslifecycle.kusionstack.io/op-a']).toBeDefined();
    expect(waiting?.metadata?.labels?.['operated.podopslifecycle.kusionstack.io/op-a']).toBeUndefined();
    expect(waiting?.metadata?.labels?.['operating.podopslifecycle.kusionstack.io/op-b']).toBeDefined();
    expect(waiting?.metadata?.labels?.['podopslifecycle.kusionstack.io/service-available']).toBeUndefined();
    expect(waiting?.metadata?.labels?.['podopslifecycle.cloneset-suite.io/phase']).toBe('Operating');
    await ops.finish(ns.name, 'pair', b);
    await serviceAvailable('pair');
  });

  it('beginWithCleaningOld restarts an operation; an undo clears the id and the pod comes back online', async () => {
    await createPod('undo', { ...CONTROL, app: 'web' }, { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { [`Service/${ns.name}/web`]: PROT } }) });
    cooperate('undo');
    await serviceAvailable('undo');
    const adapter: OperationAdapter = { id: 'cancelled', type: 'delete', allowMultiType: true };
    const first = await ops.begin(ns.name, 'undo', adapter);
    // beginWithCleaningOld: the running operation is undone, then begun afresh (a new timestamp).
    await new Promise((r) => setTimeout(r, 50));
    const again = await ops.beginWithCleaningOld(ns.name, 'undo', adapter);
    const operating = 'operating.podopslifecycle.kusionstack.io/cancelled';
    expect(again.metadata?.labels?.[operating]).toMatch(/^[0-9]{19}$/);
    expect(again.metadata?.labels?.[operating]).not.toBe(first.metadata?.labels?.[operating]);
    await eventually('preparing or operate', async () => {
      const l = (await getPod('undo'))?.metadata?.labels ?? {};
      return l['preparing.podopslifecycle.kusionstack.io/cancelled'] !== undefined || l['operate.podopslifecycle.kusionstack.io/cancelled'] !== undefined;
    });
    await ops.undo(ns.name, 'undo', adapter);
    const back = await serviceAvailable('undo');
    expect(back.metadata?.finalizers).toContain(PROT);
    await eventually('Undone Event', async () => {
      const events = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'regarding.name=undo']);
      return events?.items.some((e) => e.reason === 'Undone' && e.note?.includes('cancelled')) ?? false;
    });
  });

  it('refuses malformed lifecycle labels and annotations, naming them', async () => {
    await createPod('bad', { ...CONTROL });
    const refusal = (args: string[]): Promise<string> =>
      kubectl(args).then(
        () => 'admitted',
        (e: unknown) => (e as Error).message,
      );
    expect(await refusal(['label', 'pod', 'bad', '-n', ns.name, 'operating.podopslifecycle.kusionstack.io=1'])).toContain(
      'failed to validate PodOpsLifecycleWebhook, invalid label operating.podopslifecycle.kusionstack.io',
    );
    expect(await refusal(['annotate', 'pod', 'bad', '-n', ns.name, 'pod.kusionstack.io/available-conditions={'])).toContain(
      'invalid annotation pod.kusionstack.io/available-conditions',
    );
    await serviceAvailable('bad');
  });

  it('hand edits: operating before its type waits as NoOperationType; an undo of another type is refused; an operate value that is no timestamp is rewritten', async () => {
    await createPod('hands', { ...CONTROL });
    await serviceAvailable('hands');
    const L = (prefix: string): string => `${prefix}.podopslifecycle.kusionstack.io/half`;
    const labels = async (): Promise<Record<string, string>> => (await getPod('hands'))?.metadata?.labels ?? {};
    const refusal = (args: string[]): Promise<string> =>
      kubectl(args).then(
        () => 'admitted',
        (e: unknown) => (e as Error).message,
      );
    // As Kuperator: operating and operation-type may come in two writes; in between the id waits in PreCheck.
    expect(await refusal(['label', 'pod', 'hands', '-n', ns.name, `${L('operating')}=${Date.now()}000000`])).toBe('admitted');
    await eventually('phase NoOperationType and a MissingOperationType Event', async () => {
      const events = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'regarding.name=hands']);
      return (await labels())['podopslifecycle.cloneset-suite.io/phase'] === 'NoOperationType' && (events?.items.some((e) => e.reason === 'MissingOperationType' && e.note?.includes(L('operation-type'))) ?? false);
    });
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await labels())[L('pre-checked')]).toBeUndefined();

    await kubectl(['label', 'pod', 'hands', '-n', ns.name, `${L('operation-type')}=restart`]);
    await eventually('operate granted once the type is there', async () => (await labels())[L('operate')] !== undefined);
    // A hand-written operate value is rewritten to a real timestamp (operationDelaySeconds counts from it).
    await kubectl(['label', 'pod', 'hands', '-n', ns.name, '--overwrite', `${L('operate')}=now`]);
    await eventually('operate rewritten to a timestamp', async () => /^[0-9]{19}$/.test((await labels())[L('operate')] ?? ''));

    expect(await refusal(['label', 'pod', 'hands', '-n', ns.name, `${L('undo-operation-type')}=scale-in`])).toContain('lifecycle half runs operation type restart');
    expect((await labels())[L('operating')]).toBeDefined();
    await kubectl(['label', 'pod', 'hands', '-n', ns.name, `${L('undo-operation-type')}=restart`]);
    await serviceAvailable('hands');
  });

  it('refuses operated without done-operation-type, and the reverse, as Kuperator; a begin written with its later-stage labels keeps them', async () => {
    await createPod('pairs', { ...CONTROL });
    await serviceAvailable('pairs');
    const key = (prefix: string, id: string): string => `${prefix}.podopslifecycle.kusionstack.io/${id}`;
    const labels = async (): Promise<Record<string, string>> => (await getPod('pairs'))?.metadata?.labels ?? {};
    const refusal = (args: string[]): Promise<string> =>
      kubectl(args).then(
        () => 'admitted',
        (e: unknown) => (e as Error).message,
      );
    const ts = `${Date.now()}000000`;
    expect(await refusal(['label', 'pod', 'pairs', '-n', ns.name, `${key('operated', 'x')}=${ts}`])).toContain(
      `failed to validate PodOpsLifecycleWebhook, not found label ${key('done-operation-type', 'x')}`,
    );
    expect(await refusal(['label', 'pod', 'pairs', '-n', ns.name, `${key('done-operation-type', 'x')}=update`])).toContain(`not found label ${key('operated', 'x')}`);
    expect(Object.keys(await labels()).filter((k) => k.endsWith('/x'))).toEqual([]);

    // One write restoring a lifecycle state past PreCheck: the write's own labels stay (no pre-check
    // in their place), and the run goes on from there.
    const restored = [`${key('operating', 'r')}=${ts}`, `${key('operation-type', 'r')}=update`, `${key('pre-checked', 'r')}=${ts}`, `${key('operation-permission', 'update')}=${ts}`];
    expect(await refusal(['label', 'pod', 'pairs', '-n', ns.name, ...restored])).toBe('admitted');
    const after = await labels();
    expect(after[key('pre-checked', 'r')]).toBe(ts);
    expect(after[key('operation-permission', 'update')]).toBe(ts);
    expect(after[key('pre-check', 'r')]).toBeUndefined();
    const adapter: OperationAdapter = { id: 'r', type: 'update', allowMultiType: true };
    await eventually('operate granted to the restored run', async () => (await labels())[key('operate', 'r')] !== undefined);
    await ops.finish(ns.name, 'pairs', adapter);
    await serviceAvailable('pairs');
  });

  it('serves /mutate-pod and /validate-pod metrics', async () => {
    const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(body).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/mutate-pod",code="200"\} [1-9]/);
    expect(body).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/validate-pod",code="200"\} [1-9]/);
    expect(body).toMatch(/controller_runtime_reconcile_total\{controller="podopslifecycle",result="success"\} [1-9]/);
  });
});
