// A shard plans a CloneSet it was just given only once its caches show what the cluster holds of
// it (core/shard-handover.ts); a drained CloneSet is handed back in one guarded write.
import fc from 'fast-check';
import { FakeClock, ScaleExpectations, drainLabel, shardLabel, type KubeObject } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { handoverVerdict, type HandoverState } from '../../src/core/shard-handover.ts';
import type { CloneSetCaches } from '../../src/reconciler/caches.ts';
import { ShardHandover } from '../../src/reconciler/shard-handover.ts';
import { fakeApi, type FakeApi } from './fake-api.ts';
import { listCache, passContext, reconcilerOverLists } from './list-cache.ts';
import { NOW, cloneSet, settledPods } from './fixtures.ts';

const RING = 'ring-a';
const listed = (pods: string[], pvcs: string[] = [], revisions: string[] = []): HandoverState => ({ listedAtMs: 0, listed: { pods, pvcs, revisions } });
const all = { pods: () => true, pvcs: () => true, revisions: () => true };
const none = { pods: () => false, pvcs: () => false, revisions: () => false };

describe('handoverVerdict', () => {
  it.each([
    { case: 'nothing read yet', state: undefined, view: all, now: 0, want: 'list' },
    { case: 'everything listed is cached', state: listed(['ns/a'], ['ns/c'], ['ns/r']), view: all, now: 1, want: 'ready' },
    { case: 'the cluster held nothing', state: listed([]), view: none, now: 1, want: 'ready' },
    { case: 'a pod not cached yet', state: listed(['ns/a']), view: none, now: 1, want: 'wait' },
    { case: 'a claim not cached yet', state: listed([], ['ns/c']), view: { ...all, pvcs: () => false }, now: 1, want: 'wait' },
    { case: 'a revision not cached yet', state: listed([], [], ['ns/r']), view: { ...all, revisions: () => false }, now: 1, want: 'wait' },
    { case: 'still missing after the window: read again', state: listed(['ns/a']), view: none, now: 30_000, want: 'list' },
  ])('$case: $want', ({ state, view, now, want }) => {
    expect(handoverVerdict(state, view, now, 30_000).kind).toBe(want);
  });

  it('is ready exactly when every listed object is cached, and never waits past the window', () => {
    const names = fc.uniqueArray(fc.stringMatching(/^ns\/[a-z]{1,4}$/), { maxLength: 6 });
    fc.assert(
      fc.property(names, names, names, fc.func(fc.boolean()), fc.nat(60_000), (pods, pvcs, revisions, cached, now) => {
        const view = { pods: (k: string) => cached('p' + k), pvcs: (k: string) => cached('c' + k), revisions: (k: string) => cached('r' + k) };
        const verdict = handoverVerdict(listed(pods, pvcs, revisions), view, now, 30_000);
        const complete = pods.every(view.pods) && pvcs.every(view.pvcs) && revisions.every(view.revisions);
        expect(verdict.kind === 'ready').toBe(complete);
        if (now >= 30_000) expect(verdict.kind).not.toBe('wait');
        if (verdict.kind === 'wait') expect(verdict.missing.length).toBeGreaterThan(0);
      }),
    );
  });
});

/** The fake API with live lists of pods, PVCs and revisions answering from `cluster`. */
function withLists(api: FakeApi, cluster: Record<string, KubeObject[]>) {
  const lists: string[] = [];
  const resource = api.client.resource.bind(api.client);
  const client = {
    ...api.client,
    resource: (gvr: { resource: string }) => ({
      ...resource(gvr as never),
      listAll: (o: { labelSelector?: string }) => {
        lists.push(`${gvr.resource}?${o.labelSelector ?? ''}`);
        return Promise.resolve({ items: cluster[gvr.resource] ?? [] });
      },
    }),
  } as unknown as FakeApi['client'];
  return { client, lists };
}

function shardPass(o: { cs: KubeObject; cachedPods: KubeObject[]; cluster: Record<string, KubeObject[]>; revisions?: KubeObject[] }) {
  const api = fakeApi();
  const { client, lists } = withLists(api, o.cluster);
  const expectations = new ScaleExpectations({ controller: 'cloneset' });
  const caches = {
    cloneSets: listCache([o.cs]),
    pods: listCache(o.cachedPods),
    pvcs: listCache([]),
    revisions: listCache(o.revisions ?? []),
    nodes: listCache([]),
  } as unknown as CloneSetCaches;
  const clock = new FakeClock(NOW);
  const parts = reconcilerOverLists({
    caches,
    client,
    clock,
    recorder: api.recorder,
    expectations,
    ring: { name: RING, handover: new ShardHandover({ client, now: () => clock.now(), membership: { ring: RING, shard: 'shard-0' } }) },
  });
  return { api, lists, expectations, pass: () => parts.reconcile(caches.cloneSets.getByKey('ns/cs')!, passContext('ns/cs')) };
}

const onShard = (labels: Record<string, string> = {}) => ({ metadata: { name: 'cs', namespace: 'ns', uid: 'uid-cs', generation: 1, resourceVersion: '42', labels: { [shardLabel(RING)]: 'shard-0', ...labels } } });

describe('a shard reconciling a CloneSet', () => {
  it('given a CloneSet whose pods its cache does not show yet, creates nothing and waits', async () => {
    const { pods, revisions } = settledPods(2);
    const s = shardPass({ cs: cloneSet({ replicas: 2 }, onShard()) as unknown as KubeObject, cachedPods: [], cluster: { pods: pods as KubeObject[] }, revisions: revisions as KubeObject[] });
    const action = await s.pass();
    expect(action).toEqual({ kind: 'requeueAfter', ms: 1_000 });
    expect(s.api.calls.filter((c) => c.verb === 'create')).toEqual([]);
    expect(s.lists).toEqual(['pods?app=demo', 'persistentvolumeclaims?apps.kruise.io/cloneset-instance-id', 'controllerrevisions?app=demo']);
  });

  it('labels for itself what the cluster holds of the CloneSet under another shard\'s label (a straggler the previous shard created), guarded by the version listed', async () => {
    const { pods, revisions } = settledPods(2);
    const [mine, straggler] = pods.map((p, i) => ({ ...p, metadata: { ...p.metadata, resourceVersion: `9${i}`, labels: { ...p.metadata?.labels, [shardLabel(RING)]: i === 0 ? 'shard-0' : 'shard-1' } } })) as KubeObject[];
    const s = shardPass({ cs: cloneSet({ replicas: 2 }, onShard()) as unknown as KubeObject, cachedPods: [mine!], cluster: { pods: [mine!, straggler!] }, revisions: revisions as KubeObject[] });
    await s.pass();
    expect(s.api.calls.filter((c) => c.verb === 'patch').map((c) => [c.resource, c.name, c.body])).toEqual([
      ['pods', straggler!.metadata?.name, { type: 'merge', body: { metadata: { resourceVersion: '91', labels: { [shardLabel(RING)]: 'shard-0' } } } }],
    ]);
    expect(s.api.calls.filter((c) => c.verb === 'create')).toEqual([]);
  });

  it('plans once the caches show what the cluster held, and labels what it creates with the CloneSet\'s shard', async () => {
    const { pods, revisions } = settledPods(1);
    const s = shardPass({ cs: cloneSet({ replicas: 2 }, onShard()) as unknown as KubeObject, cachedPods: pods as KubeObject[], cluster: { pods: pods as KubeObject[] }, revisions: revisions as KubeObject[] });
    await s.pass();
    const creates = s.api.calls.filter((c) => c.verb === 'create' && c.resource === 'pods');
    expect(creates).toHaveLength(1);
    expect((creates[0]!.body as KubeObject).metadata?.labels?.[shardLabel(RING)]).toBe('shard-0');
  });

  it('drained: forgets its state and removes both labels in one write tested against the version read; plans nothing', async () => {
    const s = shardPass({ cs: cloneSet({ replicas: 2 }, onShard({ [drainLabel(RING)]: 'true' })) as unknown as KubeObject, cachedPods: [], cluster: {} });
    s.expectations.expect('ns/cs', 'create', 'cs-x');
    expect(await s.pass()).toEqual({ kind: 'done' });
    expect(s.api.calls.map((c) => `${c.verb} ${c.resource}/${c.name}`)).toEqual(['patch clonesets/cs']);
    expect(s.api.calls[0]!.body).toEqual({
      type: 'json',
      body: [
        { op: 'test', path: '/metadata/resourceVersion', value: '42' },
        { op: 'remove', path: '/metadata/labels/drain.alpha.sharding.timebertt.dev~1ring-a' },
        { op: 'remove', path: '/metadata/labels/shard.alpha.sharding.timebertt.dev~1ring-a' },
      ],
    });
    expect(s.expectations.pending('ns/cs')).toEqual({ create: [], delete: [] });
    expect(s.lists).toEqual([]);
    expect(s.api.events).toEqual([]);
  });
});
