// The built-in traffic cooperation on the local cluster: real Services, the
// kube-controller-manager's EndpointSlice controller, kwok's simulated kubelet, and the manager
// process with every controller on (the default --controllers), pod webhooks in URL mode.
// Every pod write and every EndpointSlice version is recorded from watches, so "was the pod
// still listed as ready when its image changed / when it was deleted" is checked for each write.
import path from 'node:path';
import { createTestNamespace, eventually, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, Resources, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import type { Pod } from '@cloneset-suite/podopslifecycle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chaosLong, chaosSeed, killSchedule } from '../../../../e2e/src/chaos/seeded.ts';
import { cloneSet } from '../../../../packages/cloneset-controller/test/integration/support.ts';
import { installCrds } from '../../src/local-install.ts';
import { podWebhooksAnswer, releaseNamespace } from '../support/suite-namespace.ts';
import { PodHistory, WatchHistory } from '../support/pod-history.ts';
import { finalizerDropsWhileListed as finalizerDropsAtWrites, operationsAtWrites, servicesListingReady, type SliceVersion } from '../support/traffic-order.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

const FIN = 'prot.podopslifecycle.kusionstack.io/endpointslice';
const AC = 'pod.kusionstack.io/available-conditions';
const CONTROL = 'kusionstack.io/control';
const SERVICE_AVAILABLE = 'podopslifecycle.kusionstack.io/service-available';
const PHASE = 'podopslifecycle.cloneset-suite.io/phase';

const labelsOf = (pod: Pod | undefined): Record<string, string> => pod?.metadata?.labels ?? {};
const imageOf = (pod: Pod | undefined): string | undefined => pod?.spec?.containers?.[0]?.image;
const finalizersOf = (pod: Pod | undefined): string[] => pod?.metadata?.finalizers ?? [];
const entriesOf = (pod: Pod | undefined): Record<string, string> => {
  const raw = pod?.metadata?.annotations?.[AC];
  return raw ? ((JSON.parse(raw) as { expectedFinalizers?: Record<string, string> }).expectedFinalizers ?? {}) : {};
};
const lifecycleKeys = (pod: Pod | undefined): string[] => Object.keys(labelsOf(pod)).filter((k) => /\.podopslifecycle\.kusionstack\.io\//.test(k));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Events {
  items: { reason: string; note?: string; regarding: { name: string } }[];
}

describe('traffic cooperation: EndpointSlices of the Services selecting a controlled pod', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;
  let pods: PodHistory;
  let slices: WatchHistory<SliceVersion['object']>;

  const live = async (app: string): Promise<Pod[]> =>
    (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', `app=${app}`]))?.items.filter((p) => !p.metadata?.deletionTimestamp) ?? [];
  const sliceVersions = (): SliceVersion[] => slices.all.map((v) => ({ type: v.type, object: v.object }));
  /** The Services listing the pod as ready now (as far as the slice watch has seen). */
  const listedNow = (pod: Pod): string[] => servicesListingReady(sliceVersions(), pod.metadata!.uid!, String(2n ** 62n));

  /** Every pod at `image`, out of every operation, service-available, holding the finalizer (or not) and listed (or not), and the CloneSet status agrees. */
  const settled = (name: string, replicas: number, image: string, traffic: boolean, timeoutMs = 120_000): Promise<Pod[]> =>
    eventually(`${name}: ${replicas} pods at ${image}, service-available, traffic ${traffic ? 'on' : 'not cooperating'}`, async () => {
      const ps = await live(name);
      const ok = ps.length === replicas && ps.every((p) =>
        imageOf(p) === image && labelsOf(p)[SERVICE_AVAILABLE] !== undefined && lifecycleKeys(p).length === 0 &&
        // Traffic on: held and listed. Otherwise not held (a slice of a deleted Service may still list it).
        (traffic ? finalizersOf(p).includes(FIN) && listedNow(p).length > 0 : !finalizersOf(p).includes(FIN)));
      const cs = await getJson<{ status?: { availableReplicas?: number; updatedReadyReplicas?: number; observedGeneration?: number }; metadata?: { generation?: number } }>(['clone', name, '-n', ns.name]);
      const statusOk = cs?.status?.observedGeneration === cs?.metadata?.generation && cs?.status?.availableReplicas === replicas && cs?.status?.updatedReadyReplicas === replicas;
      return ok && statusOk ? ps : undefined;
    }, { timeoutMs, intervalMs: 300 });

  const operationsWhileListed = (app: string) => operationsAtWrites(pods.transitions(), sliceVersions(), app);
  const finalizerDropsWhileListed = (app: string) => finalizerDropsAtWrites(pods.transitions(), sliceVersions(), app, FIN);

  const reasonsFor = async (pod: string): Promise<string[]> =>
    ((await getJson<Events>(['events.v1.events.k8s.io', '-n', ns.name, '--field-selector', `regarding.name=${pod}`]))?.items ?? []).map((e) => `${e.reason}: ${e.note ?? ''}`);

  const applyCloneSet = (name: string, replicas: number, image: string) =>
    kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify(cloneSet(name, replicas, { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }, { labels: { [CONTROL]: 'true' }, spec: { containers: [{ name: 'main', image }] } })));
  const setImage = (name: string, image: string) =>
    kubectl(['patch', 'clone', name, '-n', ns.name, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);
  const service = (name: string) => kubectl(['create', 'service', 'clusterip', name, '-n', ns.name, '--tcp=80:80']);

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('traffic');
    const client = new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()) });
    pods = new PodHistory(client, ns.name);
    slices = new WatchHistory(client, ns.name, Resources.endpointSlices);
    manager = await startUrlModeManager(ns.name, 'traffic-test', ['--leader-elect=false']);
    await podWebhooksAnswer(ns.name);
  }, 120_000);

  afterAll(async () => {
    pods?.stop();
    slices?.stop();
    await manager?.stop();
    if (ns) await releaseNamespace(ns, 'clone,podtransitionrule');
  });

  it('the README walkthrough: an in-place rollout and a scale-in behind a Service never operate a pod an EndpointSlice lists as ready', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', path.join(repoRoot, 'examples/podtransitionrule.yaml'), '-f', path.join(repoRoot, 'examples/cloneset-podopslifecycle.yaml')]);
    const before = await settled('foo', 4, 'nginx:1.27-alpine', true);
    for (const p of before) expect(entriesOf(p)).toEqual({ [`Service/${ns.name}/foo`]: FIN });

    await kubectl(['label', 'pods', '-n', ns.name, '-l', 'app=foo', 'app.custom/ready=true']);
    await setImage('foo', 'nginx:1.28-alpine');
    const after = await settled('foo', 4, 'nginx:1.28-alpine', true, 180_000);
    expect(after.map((p) => p.metadata?.uid).sort()).toEqual(before.map((p) => p.metadata?.uid).sort());

    await kubectl(['scale', 'clone', 'foo', '-n', ns.name, '--replicas=3']);
    await settled('foo', 3, 'nginx:1.28-alpine', true);

    const operations = operationsWhileListed('foo');
    expect(operations.filter((o) => o.what.startsWith('image'))).toHaveLength(4);
    expect(operations.filter((o) => o.what === 'deletion')).toHaveLength(1);
    expect(operations.filter((o) => o.listedBy.length > 0)).toEqual([]);
    expect(finalizerDropsWhileListed('foo')).toEqual([]);

    for (const p of after) {
      const reasons = await eventually(`TrafficOff and TrafficOn Events of ${p.metadata?.name}`, async () => {
        const seen = await reasonsFor(p.metadata!.name!);
        return seen.some((r) => /^TrafficOff: traffic off: removed from EndpointSlices of service foo after \d+ ms$/.test(r)) && seen.some((r) => r.startsWith('TrafficOn: ')) ? seen : undefined;
      });
      expect(reasons.length).toBeGreaterThan(0);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${manager!.metricsPort}/metrics`)).text();
    const drains = Number(/^cloneset_suite_traffic_drain_seconds_count (\d+)/m.exec(metrics)?.[1] ?? '0');
    expect(drains).toBeGreaterThanOrEqual(5);
  });

  it('a pod selected by no Service goes through its lifecycle without waiting for traffic', async () => {
    await applyCloneSet('solo', 1, 'nginx:1.27');
    const [pod] = await settled('solo', 1, 'nginx:1.27', false);
    expect(entriesOf(pod)).toEqual({});
    await setImage('solo', 'nginx:1.28');
    await settled('solo', 1, 'nginx:1.28', false, 60_000);
    expect([...(pods.versions.get(pod!.metadata!.uid!) ?? [])].some((v) => finalizersOf(v).includes(FIN) || Object.keys(entriesOf(v)).length > 0)).toBe(false);
  });

  it('a pod an EndpointSlice keeps listing as ready waits in Preparing; deleting the Service releases it', async () => {
    await service('held');
    await applyCloneSet('held', 1, 'nginx:1.27');
    const [pod] = await settled('held', 1, 'nginx:1.27', true);
    // A second slice of the Service, kept by hand, that never stops listing the pod as ready.
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'held-static', labels: { 'kubernetes.io/service-name': 'held', 'endpointslice.kubernetes.io/managed-by': 'cloneset-suite-test' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [pod!.status!.podIP!], conditions: { ready: true }, targetRef: { kind: 'Pod', name: pod!.metadata!.name!, namespace: ns.name, uid: pod!.metadata!.uid! } }],
      ports: [{ port: 80, protocol: 'TCP' }],
    }));
    await setImage('held', 'nginx:1.28');
    await eventually('held in Preparing with traffic still on', async () => {
      const [p] = await live('held');
      return labelsOf(p)[PHASE] === 'Preparing' && finalizersOf(p).includes(FIN) ? p : undefined;
    }, { timeoutMs: 30_000 });
    await sleep(3_000);
    const [stillHeld] = await live('held');
    expect(imageOf(stillHeld)).toBe('nginx:1.27');
    expect(finalizersOf(stillHeld)).toContain(FIN);
    // Without the cooperation the image changes at once, while the slice lists the pod as ready.
    expect(operationsWhileListed('held')).toEqual([]);

    await kubectl(['delete', 'service', 'held', '-n', ns.name]);
    const [released] = await settled('held', 1, 'nginx:1.28', false, 60_000);
    expect(entriesOf(released)).toEqual({});
    expect(await reasonsFor(released!.metadata!.name!)).toContainEqual(expect.stringMatching(/^TrafficOff: traffic off: removed from EndpointSlices of service held/));
    await kubectl(['delete', 'endpointslice', 'held-static', '-n', ns.name]);
  });

  it('a rollback while the update waits in a held PostCheck starts a fresh run: held in PreCheck without operate, then back online with no lifecycle label', async () => {
    await service('back');
    const labelCheck = (stage: string, key: string) => ({ name: `${stage.toLowerCase()}-${key}`, stage, labelCheck: { requires: { matchLabels: { [`app.custom/${key}`]: 'ok' } } } });
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'back' },
      spec: { selector: { matchLabels: { app: 'back' } }, rules: [labelCheck('PreCheck', 'pre'), labelCheck('PostCheck', 'post')] },
    }));
    await applyCloneSet('back', 1, 'nginx:1.27');
    const [pod] = await settled('back', 1, 'nginx:1.27', true);
    const name = pod!.metadata!.name!;
    const current = async (): Promise<Pod> => (await live('back'))[0]!;
    await kubectl(['label', 'pod', name, '-n', ns.name, 'app.custom/pre=ok']);
    await setImage('back', 'nginx:1.28');
    await eventually('updated in place, held in PostCheck', async () => {
      const p = await current();
      return imageOf(p) === 'nginx:1.28' && labelsOf(p)[PHASE] === 'PostCheck' ? p : undefined;
    }, { timeoutMs: 60_000 });

    // The rollback: the CloneSet begins its id again while the earlier run waits in PostCheck.
    await kubectl(['label', 'pod', name, '-n', ns.name, 'app.custom/pre-']);
    await setImage('back', 'nginx:1.27');
    const id = (prefix: string): string => `${prefix}.podopslifecycle.kusionstack.io/cloneset`;
    await eventually('a fresh run held in PreCheck', async () => {
      const l = labelsOf(await current());
      return l[PHASE] === 'PreCheck' && l[id('operating')] !== undefined && l[id('pre-check')] !== undefined;
    }, { timeoutMs: 60_000 });
    await sleep(3_000);
    const held = await current();
    expect(imageOf(held)).toBe('nginx:1.28');
    // Nothing of the earlier run is left, and nothing lets the CloneSet operate while PreCheck rejects.
    for (const prefix of ['operate', 'operated', 'done-operation-type', 'post-check', 'post-checked', 'completing', 'pre-checked']) expect(labelsOf(held)[id(prefix)]).toBeUndefined();
    expect(labelsOf(held)[id('operation-type')]).toBe('update');

    await kubectl(['label', 'pod', name, '-n', ns.name, 'app.custom/pre=ok', 'app.custom/post=ok']);
    const [back] = await settled('back', 1, 'nginx:1.27', true, 120_000);
    expect(back!.metadata?.uid).toBe(pod!.metadata?.uid);
    expect(back!.status?.conditions?.find((c) => c.type === 'pod.kusionstack.io/service-ready')?.status).toBe('True');
    expect(back!.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(Object.keys(labelsOf(back)).filter((k) => k.includes('operation-permission'))).toEqual([]);
    expect(operationsWhileListed('back').filter((o) => o.listedBy.length > 0)).toEqual([]);
  });

  it('a controlled pod without the service-ready gate (labelled after creation) behind a Service: no finalizer that nothing could release, and a Warning says why', async () => {
    await service('late');
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'late', labels: { app: 'late' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    }));
    await eventually('late Ready and listed', async () => {
      const p = await getJson<Pod>(['pod', 'late', '-n', ns.name]);
      return p?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && listedNow(p).includes('late');
    }, { timeoutMs: 60_000 });
    await kubectl(['label', 'pod', 'late', '-n', ns.name, `${CONTROL}=true`]);
    await eventually('late service-available', async () => labelsOf(await getJson<Pod>(['pod', 'late', '-n', ns.name]))[SERVICE_AVAILABLE] !== undefined, { timeoutMs: 60_000 });
    const op = (prefix: string): string => `${prefix}.podopslifecycle.kusionstack.io/by-hand`;
    await kubectl(['label', 'pod', 'late', '-n', ns.name, `${op('operating')}=${Date.now()}000000`, `${op('operation-type')}=restart`]);
    // It cannot be drained (no gate), so nothing holds it in Preparing: it is operated at once, and says so.
    await eventually('operate granted', async () => labelsOf(await getJson<Pod>(['pod', 'late', '-n', ns.name]))[op('operate')] !== undefined, { timeoutMs: 30_000 });
    await eventually('NoServiceReadyGate Event', async () => (await reasonsFor('late')).some((r) => r.startsWith('NoServiceReadyGate: ')));
    await kubectl(['label', 'pod', 'late', '-n', ns.name, `${op('operating')}-`]);
    const done = await eventually('late back online', async () => {
      const p = await getJson<Pod>(['pod', 'late', '-n', ns.name]);
      return labelsOf(p)[SERVICE_AVAILABLE] !== undefined && lifecycleKeys(p).length === 0 ? p : undefined;
    }, { timeoutMs: 60_000 });
    expect(entriesOf(done)).toEqual({});
    expect([...(pods.versions.get(done.metadata!.uid!) ?? [])].some((v) => finalizersOf(v).includes(FIN))).toBe(false);
  });

  it('an ExternalName Service with a selector is no employer: the pods go online without waiting for endpoints it never has', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'ext' },
      spec: { type: 'ExternalName', externalName: 'example.com', selector: { app: 'ext' } },
    }));
    await applyCloneSet('ext', 1, 'nginx:1.27');
    const [pod] = await settled('ext', 1, 'nginx:1.27', false, 60_000);
    expect(entriesOf(pod)).toEqual({});
  });

  it('kusionstack.io/control removed mid-operation: the pod is released, service-ready True and Ready again, with a Warning', async () => {
    await service('dropped');
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'dropped', labels: { app: 'dropped', [CONTROL]: 'true' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    }));
    await eventually('dropped online with traffic on', async () => {
      const p = await getJson<Pod>(['pod', 'dropped', '-n', ns.name]);
      return labelsOf(p)[SERVICE_AVAILABLE] !== undefined && finalizersOf(p).includes(FIN);
    }, { timeoutMs: 60_000 });
    const op = (prefix: string): string => `${prefix}.podopslifecycle.kusionstack.io/by-hand`;
    await kubectl(['label', 'pod', 'dropped', '-n', ns.name, `${op('operating')}=${Date.now()}000000`, `${op('operation-type')}=restart`]);
    await eventually('operating with traffic off', async () => {
      const p = await getJson<Pod>(['pod', 'dropped', '-n', ns.name]);
      return labelsOf(p)[op('operate')] !== undefined && p?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False';
    }, { timeoutMs: 60_000 });
    await kubectl(['label', 'pod', 'dropped', '-n', ns.name, `${CONTROL}-`]);
    const released = await eventually('dropped Ready again', async () => {
      const p = await getJson<Pod>(['pod', 'dropped', '-n', ns.name]);
      const status = (type: string) => p?.status?.conditions?.find((c) => c.type === type)?.status;
      return status('pod.kusionstack.io/service-ready') === 'True' && status('Ready') === 'True' ? p : undefined;
    }, { timeoutMs: 60_000 });
    expect(finalizersOf(released)).not.toContain(FIN);
    await eventually('ControlLabelRemoved Event', async () => (await reasonsFor('dropped')).some((r) => r.startsWith('ControlLabelRemoved: ') && r.includes('by-hand')));
  });

  it('SIGKILLs of the manager during a rollout behind a Service: no pod operated or released while listed as ready, every pod back online', async () => {
    const seed = chaosSeed();
    const [replicas, kills] = chaosLong() ? [20, 15] : [6, 3];
    const schedule = killSchedule(seed, kills, 200, 2_500);
    console.log(`[traffic chaos] seed ${seed}: ${kills} SIGKILLs after ${schedule.join(', ')} ms (CHAOS_SEED=${seed} replays it)`);
    await service('crash');
    await applyCloneSet('crash', replicas, 'nginx:1.27');
    await settled('crash', replicas, 'nginx:1.27', true);
    await setImage('crash', 'nginx:1.28');
    for (const delay of schedule) {
      await sleep(delay);
      await manager!.restart();
    }
    // While the manager was down its pod webhooks (failurePolicy Fail) refused the simulated
    // kubelet's status patches, and kwok does not retry a refused stage as a kubelet would: once
    // the webhooks answer again, one write per pod makes it play the stage again.
    await podWebhooksAnswer(ns.name);
    await kubectl(['annotate', 'pods', '-n', ns.name, '-l', 'app=crash', '--overwrite', 'test.cloneset-suite.io/nudge=after-kills']);
    await settled('crash', replicas, 'nginx:1.28', true, 240_000);
    const operations = operationsWhileListed('crash');
    expect(operations.filter((o) => o.what.startsWith('image'))).toHaveLength(replicas);
    expect(operations.filter((o) => o.listedBy.length > 0)).toEqual([]);
    expect(finalizerDropsWhileListed('crash')).toEqual([]);
  }, 600_000);

  it('a pod deleted while the manager is down stays Terminating only until it is back', async () => {
    await service('lone');
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'lone', labels: { app: 'lone', [CONTROL]: 'true' } },
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] },
    }));
    const online = await eventually('lone: service-available with traffic on', async () => {
      const p = await getJson<Pod>(['pod', 'lone', '-n', ns.name]);
      return labelsOf(p)[SERVICE_AVAILABLE] !== undefined && finalizersOf(p).includes(FIN) && listedNow(p!).includes('lone') ? p : undefined;
    }, { timeoutMs: 60_000 });
    expect(entriesOf(online)).toEqual({ [`Service/${ns.name}/lone`]: FIN });

    manager!.process.child.kill('SIGKILL');
    await manager!.process.exited;
    await kubectl(['delete', 'pod', 'lone', '-n', ns.name, '--wait=false']);
    await sleep(4_000);
    const terminating = await getJson<Pod>(['pod', 'lone', '-n', ns.name]);
    expect(terminating?.metadata?.deletionTimestamp).toBeDefined();
    expect(finalizersOf(terminating)).toContain(FIN);

    await manager!.restart();
    await eventually('lone is gone', async () => ((await kubectl(['get', 'pods', '-n', ns.name, '-o', 'name'])).includes('pod/lone') ? undefined : true), { timeoutMs: 90_000 });
    // Released only once the terminating endpoint stopped being ready.
    expect(pods.transitions().some(([b, a]) => labelsOf(b).app === 'lone' && finalizersOf(b).includes(FIN) && !finalizersOf(a).includes(FIN))).toBe(true);
    expect(finalizerDropsWhileListed('lone')).toEqual([]);
  });
});
