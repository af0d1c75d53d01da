// CloneSet meets PodOpsLifecycle and PodTransitionRule on the local cluster: the
// controller-manager process (cloneset, podopslifecycle and podtransitionrule controllers) serves
// the pod webhooks in URL mode, scoped to the test namespace. The test plays a cooperation
// controller that holds a prot. finalizer while a pod is online, and watches every pod version.
import path from 'node:path';
import { createTestNamespace, eventually, freePort, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import type { Pod } from '@cloneset-suite/podopslifecycle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrds } from '../../src/local-install.ts';
import { TestWebhookServer } from '../../../../packages/transition-rule/test/support/webhook-server.ts';
import { PodHistory } from '../support/pod-history.ts';
import { releaseNamespace } from '../support/suite-namespace.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

const PROT = 'prot.podopslifecycle.kusionstack.io/test-traffic';
const CONTROL = 'kusionstack.io/control';
const SERVICE_AVAILABLE = 'podopslifecycle.kusionstack.io/service-available';
const PHASE = 'podopslifecycle.cloneset-suite.io/phase';
const CONTROLLERS = ['cloneset', 'podopslifecycle', 'podtransitionrule'];

const labelsOf = (pod: Pod | undefined): Record<string, string> => pod?.metadata?.labels ?? {};
const condition = (pod: Pod | undefined, type: string): string | undefined => pod?.status?.conditions?.find((c) => c.type === type)?.status;
const imageOf = (pod: Pod | undefined): string | undefined => pod?.spec?.containers?.[0]?.image;
const lifecycleKeys = (pod: Pod | undefined): string[] =>
  Object.keys(labelsOf(pod)).filter((k) => /\.podopslifecycle\.kusionstack\.io\//.test(k));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Events {
  items: { reason: string; note?: string; regarding: { name: string } }[];
}
interface CloneSetStatus {
  status?: { replicas?: number; availableReplicas?: number; updatedReplicas?: number; updatedReadyReplicas?: number; observedGeneration?: number };
  metadata?: { generation?: number };
}

describe('CloneSet through PodOpsLifecycle and PodTransitionRule on a cluster', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;
  let client: KubeClient;
  let history: PodHistory;
  let stopCooperation = false;

  const pods = async (app: string): Promise<Pod[]> =>
    (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', `app=${app}`]))?.items.filter((p) => !p.metadata?.deletionTimestamp) ?? [];

  /** A CloneSet whose pods opt in to PodOpsLifecycle and expect the cooperation finalizer. */
  async function applyCloneSet(
    name: string,
    replicas: number,
    image: string,
    opts: { controlled?: boolean; maxUnavailable?: string | number; type?: 'ReCreate' | 'InPlaceIfPossible'; labels?: Record<string, string>; lifecycle?: unknown } = {},
  ): Promise<void> {
    const controlled = opts.controlled ?? true;
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: {
            labels: { app: name, ...(controlled ? { [CONTROL]: 'true' } : {}), ...(opts.labels ?? {}) },
            ...(controlled ? { annotations: { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { [`Service/${ns.name}/${name}`]: PROT } }) } } : {}),
          },
          spec: { containers: [{ name: 'main', image }] },
        },
        updateStrategy: { type: opts.type ?? 'InPlaceIfPossible', maxUnavailable: opts.maxUnavailable ?? 1 },
        lifecycle: opts.lifecycle,
      },
    }));
  }

  const setImage = (name: string, image: string) =>
    kubectl(['patch', 'clone', name, '-n', ns.name, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);

  /** Every pod of the CloneSet at `image`, service-available, out of every operation, and the status says so. */
  const settled = (name: string, replicas: number, image: string, timeoutMs = 120_000): Promise<Pod[]> =>
    eventually(`${name}: ${replicas} pods at ${image}, service-available`, async () => {
      const ps = await pods(name);
      const ok = ps.length === replicas && ps.every((p) => imageOf(p) === image && labelsOf(p)[SERVICE_AVAILABLE] !== undefined && lifecycleKeys(p).length === 0);
      const cs = await getJson<CloneSetStatus>(['clone', name, '-n', ns.name]);
      const statusOk = cs?.status?.observedGeneration === cs?.metadata?.generation && cs?.status?.availableReplicas === replicas && cs?.status?.updatedReadyReplicas === replicas;
      return ok && statusOk ? ps : undefined;
    }, { timeoutMs, intervalMs: 300 });

  /**
   * A cooperation controller in the spirit of Kuperator's ResourceConsist for every controlled pod:
   * the prot. finalizer on while the pod is Ready and service-ready, off otherwise.
   */
  function cooperate(): void {
    void (async () => {
      while (!stopCooperation) {
        const all = (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', `${CONTROL}=true`]).catch(() => undefined))?.items ?? [];
        await Promise.all(all.map(async (pod) => {
          const online = condition(pod, 'Ready') === 'True' && condition(pod, 'pod.kusionstack.io/service-ready') === 'True' && !pod.metadata?.deletionTimestamp;
          const finalizers = pod.metadata?.finalizers ?? [];
          const want = online ? [...new Set([...finalizers, PROT])] : finalizers.filter((f) => f !== PROT);
          if (want.length === finalizers.length) return;
          await kubectl(['patch', 'pod', pod.metadata!.name!, '-n', ns.name, '--type=json', '-p', JSON.stringify([
            { op: 'test', path: '/metadata/resourceVersion', value: pod.metadata?.resourceVersion },
            { op: 'add', path: '/metadata/finalizers', value: want },
          ])]).catch(() => undefined);
        }));
        await sleep(150);
      }
    })();
  }

  /** Samples `unavailable()` every 100 ms until stop() resolves with the worst value and the sample count. */
  function sampleWorst(unavailable: () => Promise<number>): { stop: () => Promise<{ worst: number; samples: number }> } {
    let sampling = true;
    let worst = 0;
    let samples = 0;
    const loop = (async () => {
      while (sampling) {
        worst = Math.max(worst, await unavailable());
        samples++;
        await sleep(100);
      }
    })();
    return { stop: async () => ((sampling = false), await loop, { worst, samples }) };
  }

  const applyRule = (name: string, rules: unknown[]) =>
    kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name },
      spec: { selector: { matchLabels: { app: name } }, rules },
    }));

  const eventsFor = async (pod: string): Promise<Set<string>> =>
    new Set((await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', `regarding.name=${pod}`]))?.items.map((e) => e.reason));

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('cspol');
    manager = await startUrlModeManager(ns.name, 'cs-pol-test', [`--controllers=${CONTROLLERS.join(',')}`, '--leader-elect=false']);
    // Ready once the caBundle is injected: a controlled pod is admitted through both webhooks.
    await eventually('the pod webhooks answer', async () => {
      await kubectl(['apply', '--dry-run=server', '-n', ns.name, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', labels: { [CONTROL]: 'true' } }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
      return true;
    }, { timeoutMs: 60_000 });
    client = new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()) });
    history = new PodHistory(client, ns.name);
    cooperate();
  }, 120_000);

  afterAll(async () => {
    stopCooperation = true;
    history?.stop();
    await manager?.stop();
    if (ns) await releaseNamespace(ns, 'clone,podtransitionrule');
  });

  it('an in-place update runs PreCheck -> Preparing -> Operating -> update -> PostCheck -> Completing -> service-available, never under the prot. finalizer', async () => {
    await kubectl(['create', 'service', 'clusterip', 'web', '-n', ns.name, '--tcp=80:80']);
    await applyCloneSet('web', 2, 'nginx:1.27');
    const before = await settled('web', 2, 'nginx:1.27');
    expect(before.every((p) => (p.metadata?.finalizers ?? []).includes(PROT))).toBe(true);

    await setImage('web', 'nginx:1.28');
    const after = await settled('web', 2, 'nginx:1.28');
    // Updated in place: the same pods.
    expect(after.map((p) => p.metadata?.uid).sort()).toEqual(before.map((p) => p.metadata?.uid).sort());

    const updates = history.transitions().filter(([a, b]) => labelsOf(a).app === 'web' && imageOf(a) === 'nginx:1.27' && imageOf(b) === 'nginx:1.28');
    expect(updates).toHaveLength(2);
    for (const [, updated] of updates) {
      // The write that changed the image: the CloneSet held operate, traffic was off, no protection.
      expect(updated.metadata?.finalizers ?? []).not.toContain(PROT);
      expect(labelsOf(updated)['operate.podopslifecycle.kusionstack.io/cloneset']).toBeDefined();
      expect(labelsOf(updated)['operation-type.podopslifecycle.kusionstack.io/cloneset']).toBe('update');
      expect(condition(updated, 'pod.kusionstack.io/service-ready')).toBe('False');
    }
    for (const pod of after) {
      const versions = history.versions.get(pod.metadata!.uid!) ?? [];
      // Preparing: the service-ready condition went False while the pod was still at the old image.
      expect(versions.some((v) => labelsOf(v)[PHASE] === 'Preparing' && condition(v, 'pod.kusionstack.io/service-ready') === 'False' && imageOf(v) === 'nginx:1.27')).toBe(true);
      const reasons = await eventually(`phase Events of ${pod.metadata?.name}`, async () => {
        const seen = await eventsFor(pod.metadata!.name!);
        return ['PreCheck', 'Preparing', 'Operating', 'PostCheck', 'Completing', 'ServiceAvailable'].every((r) => seen.has(r)) ? seen : undefined;
      });
      expect(reasons.has('Undone')).toBe(false);
      expect(pod.metadata?.finalizers ?? []).toContain(PROT);
    }
  });

  it('a scale-in of controlled pods deletes them only once the prot. finalizer is gone, with the preparing-to-delete hint', async () => {
    const before = await pods('web');
    await kubectl(['scale', 'clone', 'web', '-n', ns.name, '--replicas=1']);
    await settled('web', 1, 'nginx:1.28');
    const deletions = history.transitions().filter(([a, b]) => labelsOf(a).app === 'web' && !a.metadata?.deletionTimestamp && b.metadata?.deletionTimestamp);
    expect(deletions).toHaveLength(1);
    const [, deleted] = deletions[0]!;
    expect(deleted.metadata?.finalizers ?? []).not.toContain(PROT);
    expect(labelsOf(deleted)['operation-type.podopslifecycle.kusionstack.io/cloneset']).toBe('scale-in');
    expect(labelsOf(deleted)['operate.podopslifecycle.kusionstack.io/cloneset']).toBeDefined();
    expect(labelsOf(deleted)['podopslifecycle.kusionstack.io/preparing-to-delete']).toBeDefined();
    expect(before.map((p) => p.metadata?.uid)).toContain(deleted.metadata?.uid);
  });

  it('a ReCreate update of controlled pods announces the delete at begin: preparing-to-delete with the operating timestamp, as a scale-in', async () => {
    await kubectl(['create', 'service', 'clusterip', 'recreated', '-n', ns.name, '--tcp=80:80']);
    await applyCloneSet('recreated', 2, 'nginx:1.27', { type: 'ReCreate' });
    const before = await settled('recreated', 2, 'nginx:1.27');
    await setImage('recreated', 'nginx:1.28');
    const after = await settled('recreated', 2, 'nginx:1.28');
    expect(after.map((p) => p.metadata?.uid).some((uid) => before.some((b) => b.metadata?.uid === uid))).toBe(false);
    for (const old of before) {
      const versions = history.versions.get(old.metadata!.uid!) ?? [];
      // The begin write: operating and the hint in one write, with the same timestamp.
      const begun = versions.find((v) => labelsOf(v)['operating.podopslifecycle.kusionstack.io/cloneset'] !== undefined);
      expect(labelsOf(begun)['operation-type.podopslifecycle.kusionstack.io/cloneset']).toBe('update');
      expect(labelsOf(begun)['podopslifecycle.kusionstack.io/preparing-to-delete']).toBe(labelsOf(begun)['operating.podopslifecycle.kusionstack.io/cloneset']);
      expect(JSON.parse(begun?.metadata?.annotations?.['podopslifecycle.cloneset-suite.io/cloneset-operation'] ?? '{}')).toMatchObject({ type: 'update', deletesPod: true });
      // Deleted only once granted, with the traffic off.
      const deleted = versions.find((v) => v.metadata?.deletionTimestamp);
      expect(labelsOf(deleted)['operate.podopslifecycle.kusionstack.io/cloneset']).toBeDefined();
      expect(deleted?.metadata?.finalizers ?? []).not.toContain(PROT);
    }
  });

  it('a hand-written operation-type scale-in on a pod in an in-place update never gets it deleted: a Warning, and the update goes on once the label is back', async () => {
    const HOLD = 'example.com/hold-update';
    await kubectl(['create', 'service', 'clusterip', 'edited', '-n', ns.name, '--tcp=80:80']);
    // The OpenKruise inPlaceUpdate hook keeps a granted pod in PreparingUpdate while it carries HOLD.
    await applyCloneSet('edited', 1, 'nginx:1.27', { labels: { [HOLD]: 'true' }, lifecycle: { inPlaceUpdate: { labelsHandler: { [HOLD]: 'true' } } } });
    const [pod] = await settled('edited', 1, 'nginx:1.27');
    const name = pod!.metadata!.name!;
    await setImage('edited', 'nginx:1.28');
    await eventually('granted, held by the hook', async () => {
      const p = (await pods('edited'))[0];
      return labelsOf(p)['operate.podopslifecycle.kusionstack.io/cloneset'] !== undefined && labelsOf(p)['lifecycle.apps.kruise.io/state'] === 'PreparingUpdate';
    }, { timeoutMs: 60_000 });

    await kubectl(['label', 'pod', name, '-n', ns.name, '--overwrite', 'operation-type.podopslifecycle.kusionstack.io/cloneset=scale-in']);
    await eventually('OperationTypeMismatch on the pod', async () => (await eventsFor(name)).has('OperationTypeMismatch'), { timeoutMs: 30_000 });
    // The hook lets go: before the fix the CloneSet deleted the pod as a granted scale-in here.
    await kubectl(['label', 'pod', name, '-n', ns.name, `${HOLD}-`]);
    // The CloneSet says what holds it.
    await eventually('PodsHeld: OperationTypeMismatch', async () => {
      const cs = await getJson<{ status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] } }>(['clone', 'edited', '-n', ns.name]);
      const held = cs?.status?.conditions?.find((c) => c.type === 'PodsHeld');
      return held?.status === 'True' && held.reason === 'OperationTypeMismatch' && (held.message ?? '').includes(name);
    }, { timeoutMs: 30_000 });
    await sleep(5_000);
    const waiting = (await pods('edited'))[0];
    expect(waiting?.metadata?.uid).toBe(pod!.metadata?.uid);
    expect(imageOf(waiting)).toBe('nginx:1.27');
    expect((history.versions.get(pod!.metadata!.uid!) ?? []).some((v) => v.metadata?.deletionTimestamp)).toBe(false);

    // The label back as the CloneSet wrote it: the in-place update goes on, the same pod; the hook's
    // label re-added after it, as its owner does, lets the pod leave Updated for Normal.
    await kubectl(['label', 'pod', name, '-n', ns.name, '--overwrite', 'operation-type.podopslifecycle.kusionstack.io/cloneset=update']);
    await eventually('updated in place', async () => imageOf((await pods('edited'))[0]) === 'nginx:1.28', { timeoutMs: 60_000 });
    await kubectl(['label', 'pod', name, '-n', ns.name, `${HOLD}=true`]);
    const [done] = await settled('edited', 1, 'nginx:1.28');
    expect(done!.metadata?.uid).toBe(pod!.metadata?.uid);
  });

  it('an uncontrolled CloneSet in the same namespace updates in place as under OpenKruise: no lifecycle label or gate ever', async () => {
    await applyCloneSet('plain', 2, 'nginx:1.27', { controlled: false });
    await eventually('plain ready', async () => {
      const cs = await getJson<CloneSetStatus>(['clone', 'plain', '-n', ns.name]);
      return cs?.status?.availableReplicas === 2;
    }, { timeoutMs: 60_000 });
    await setImage('plain', 'nginx:1.28');
    await eventually('plain updated', async () => {
      const cs = await getJson<CloneSetStatus>(['clone', 'plain', '-n', ns.name]);
      return cs?.status?.updatedReadyReplicas === 2 && cs.status.availableReplicas === 2;
    }, { timeoutMs: 60_000 });
    const plainVersions = [...history.versions.values()].flat().filter((p) => labelsOf(p).app === 'plain');
    expect(plainVersions.length).toBeGreaterThan(0);
    expect(plainVersions.flatMap((p) => Object.keys(labelsOf(p)).filter((k) => k.includes('podopslifecycle')))).toEqual([]);
    expect(plainVersions.some((p) => (p.spec?.readinessGates ?? []).some((g) => g.conditionType === 'pod.kusionstack.io/service-ready'))).toBe(false);
  });

  it('PodTransitionRule maxUnavailableValue 50%: a rollout never has more than half of the pods unavailable', async () => {
    await kubectl(['create', 'service', 'clusterip', 'half', '-n', ns.name, '--tcp=80:80']);
    await applyRule('half', [{ name: 'maxUnavailable', availablePolicy: { maxUnavailableValue: '50%' } }]);
    // The CloneSet alone would take every pod down at once: only the rule holds them.
    await applyCloneSet('half', 4, 'nginx:1.27', { maxUnavailable: '100%' });
    await settled('half', 4, 'nginx:1.27');
    const sampler = sampleWorst(async () => 4 - (await pods('half')).filter((p) => labelsOf(p)[SERVICE_AVAILABLE] !== undefined && condition(p, 'Ready') === 'True').length);
    await setImage('half', 'nginx:1.28');
    await settled('half', 4, 'nginx:1.28', 180_000);
    const { worst, samples } = await sampler.stop();
    expect(samples).toBeGreaterThan(10);
    // Never more than half; and the rule, not the CloneSet, limited the rollout: two at some point.
    expect(worst).toBe(2);
  });

  it('a labelCheck holds PreCheck until `kubectl label` adds the label', async () => {
    await kubectl(['create', 'service', 'clusterip', 'checked', '-n', ns.name, '--tcp=80:80']);
    await applyRule('checked', [{ name: 'labelCheck', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { 'app.custom/ready': 'true' } } } }]);
    await applyCloneSet('checked', 1, 'nginx:1.27');
    const [pod] = await settled('checked', 1, 'nginx:1.27');
    await setImage('checked', 'nginx:1.28');
    await eventually('the pod waits in PreCheck', async () => labelsOf((await pods('checked'))[0])[PHASE] === 'PreCheck', { timeoutMs: 30_000 });
    await sleep(4_000);
    const waiting = (await pods('checked'))[0];
    expect(labelsOf(waiting)[PHASE]).toBe('PreCheck');
    expect(labelsOf(waiting)['pre-checked.podopslifecycle.kusionstack.io/cloneset']).toBeUndefined();
    expect(imageOf(waiting)).toBe('nginx:1.27');
    expect(labelsOf(waiting)[SERVICE_AVAILABLE]).toBeDefined();

    await kubectl(['label', 'pod', pod!.metadata!.name!, '-n', ns.name, 'app.custom/ready=true']);
    const [done] = await settled('checked', 1, 'nginx:1.28');
    expect(done!.metadata?.uid).toBe(pod!.metadata?.uid);
  });
  it('a pod that leaves the plan before operate is undone: the rollout reverted while PreCheck holds it', async () => {
    await kubectl(['create', 'service', 'clusterip', 'reverted', '-n', ns.name, '--tcp=80:80']);
    await applyRule('reverted', [{ name: 'labelCheck', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { 'app.custom/ready': 'true' } } } }]);
    await applyCloneSet('reverted', 1, 'nginx:1.27');
    const [pod] = await settled('reverted', 1, 'nginx:1.27');
    await setImage('reverted', 'nginx:1.28');
    await eventually('held in PreCheck', async () => labelsOf((await pods('reverted'))[0])[PHASE] === 'PreCheck', { timeoutMs: 30_000 });
    await setImage('reverted', 'nginx:1.27');
    const [back] = await settled('reverted', 1, 'nginx:1.27');
    expect(back!.metadata?.uid).toBe(pod!.metadata?.uid);
    await eventually('Undone Event', async () => (await eventsFor(pod!.metadata!.name!)).has('Undone'));
    // Never touched: the image stayed, and no operate was ever granted to the CloneSet.
    const versions = history.versions.get(pod!.metadata!.uid!) ?? [];
    expect(versions.every((v) => imageOf(v) === 'nginx:1.27')).toBe(true);
    expect(versions.some((v) => labelsOf(v)['operate.podopslifecycle.kusionstack.io/cloneset'] !== undefined)).toBe(false);
  });

  it('the README walkthrough: examples/podtransitionrule.yaml gates examples/cloneset-podopslifecycle.yaml', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', path.join(repoRoot, 'examples/podtransitionrule.yaml'), '-f', path.join(repoRoot, 'examples/cloneset-podopslifecycle.yaml')]);
    await settled('foo', 4, 'nginx:1.27-alpine');
    await setImage('foo', 'nginx:1.28-alpine');
    // Held by the labelCheck: every pod waits in PreCheck, still serving at the old image.
    await eventually('4 pods held in PreCheck', async () => {
      const ps = await pods('foo');
      const ptr = await getJson<{ status?: { waitingCount?: number } }>(['ptr', 'podtransitionrule-sample', '-n', ns.name]);
      return ps.length === 4 && ps.every((p) => labelsOf(p)[PHASE] === 'PreCheck' && imageOf(p) === 'nginx:1.27-alpine') && ptr?.status?.waitingCount === 4;
    }, { timeoutMs: 60_000 });
    const sampler = sampleWorst(async () => 4 - (await pods('foo')).filter((p) => condition(p, 'Ready') === 'True').length);
    await kubectl(['label', 'pods', '-n', ns.name, '-l', 'app=foo', 'app.custom/ready=true']);
    await settled('foo', 4, 'nginx:1.28-alpine', 180_000);
    const { worst } = await sampler.stop();
    expect(worst).toBeLessThanOrEqual(2);
    // The PostCheck webhook's example URL does not answer: failurePolicy Ignore lets pods pass, with an Event.
    const ignored = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'reason=WebhookFailureIgnored']);
    expect(ignored?.items.length).toBeGreaterThan(0);

    await kubectl(['scale', 'clone', 'foo', '-n', ns.name, '--replicas=3']);
    await settled('foo', 3, 'nginx:1.28-alpine');
  });
  it('webhook failurePolicy: Fail holds PreCheck on a dead endpoint; switched to Ignore, the pod passes with an Event', async () => {
    const dead = `http://127.0.0.1:${await freePort()}/gone`;
    await kubectl(['create', 'service', 'clusterip', 'guarded', '-n', ns.name, '--tcp=80:80']);
    await applyRule('guarded', [{ name: 'hook', stage: 'PreCheck', webhook: { clientConfig: { url: dead }, failurePolicy: 'Fail' } }]);
    await applyCloneSet('guarded', 1, 'nginx:1.27');
    await settled('guarded', 1, 'nginx:1.27');
    await setImage('guarded', 'nginx:1.28');
    await eventually('held in PreCheck', async () => labelsOf((await pods('guarded'))[0])[PHASE] === 'PreCheck', { timeoutMs: 30_000 });
    await sleep(4_000);
    const held = (await pods('guarded'))[0];
    expect(labelsOf(held)[PHASE]).toBe('PreCheck');
    expect(imageOf(held)).toBe('nginx:1.27');

    await kubectl(['patch', 'ptr', 'guarded', '-n', ns.name, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/rules/0/webhook/failurePolicy', value: 'Ignore' }])]);
    await settled('guarded', 1, 'nginx:1.28');
    const events = await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', 'reason=WebhookFailureIgnored']);
    expect(events?.items.some((e) => e.regarding.name === 'guarded' || (e.note ?? '').includes('guarded'))).toBe(true);
  });

  it('a PostCheck webhook with poll lets the pod complete only once the poll answers finished; killing the manager meanwhile loses no task', async () => {
    const server = await new TestWebhookServer().listen();
    try {
      await kubectl(['create', 'service', 'clusterip', 'polled', '-n', ns.name, '--tcp=80:80']);
      await applyRule('polled', [{ name: 'hook', stage: 'PostCheck', webhook: { clientConfig: { url: server.url('/poll'), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 600 } } } }]);
      await applyCloneSet('polled', 1, 'nginx:1.27');
      await settled('polled', 1, 'nginx:1.27');
      await setImage('polled', 'nginx:1.28');
      const taskId = await eventually('a poll task in the rule status', async () =>
        (await getJson<{ status?: { ruleStates?: { webhookStatus?: { taskStates?: { taskId?: string }[] } }[] } }>(['ptr', 'polled', '-n', ns.name]))?.status?.ruleStates?.[0]?.webhookStatus?.taskStates?.[0]?.taskId,
      { timeoutMs: 60_000 });
      const inPostCheck = (await pods('polled'))[0];
      expect(labelsOf(inPostCheck)[PHASE]).toBe('PostCheck');
      expect(imageOf(inPostCheck)).toBe('nginx:1.28');

      let pollsBefore = 0;
      await manager!.restart(() => (pollsBefore = server.calls.filter((c) => c.query.get('task-id') === taskId).length));
      await eventually('the restarted manager polls the same task', () => Promise.resolve(server.calls.filter((c) => c.query.get('task-id') === taskId).length > pollsBefore), { timeoutMs: 60_000 });
      expect(server.callsTo('/poll')).toHaveLength(1);
      expect(labelsOf((await pods('polled'))[0])[PHASE]).toBe('PostCheck');

      server.tasks.get(taskId)!.finished = true;
      const [done] = await settled('polled', 1, 'nginx:1.28');
      expect(done!.metadata?.uid).toBe(inPostCheck!.metadata?.uid);
    } finally {
      await server.close();
    }
  });
});
