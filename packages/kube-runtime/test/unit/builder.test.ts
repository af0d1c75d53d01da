// The controller builder: each declaration (for, owns, watches, waitsFor, triggeredBy,
// tracksOwnWrites, reactsTo, recordsEvents) does what it says, in the order that matters; the
// reconciler receives the cached object once the cache shows our own writes, and its own state is
// forgotten and released with its objects and its controller.
import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../src/client/types.ts';
import { done, type ReconcileAction } from '../../src/controller/action.ts';
import { ControllerBuilder, type ControllerHandles, type ControllerHost, type ObjectReconciler, type ReconcilerParts } from '../../src/controller/builder.ts';
import { ReconcileError } from '../../src/controller/errors.ts';
import type { EventRecorder } from '../../src/events.ts';
import type { ScaleExpectations } from '../../src/expectations.ts';
import { silentLogger } from '../../src/logger.ts';
import type { DeepReadonly } from '../../src/util/deep-readonly.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { Runnable } from '../../src/runnable.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeSource } from '../support/fake-source.ts';

const OWNER = { group: 'apps.kruise.io', kind: 'CloneSet' };
const ownerRef = (name: string): OwnerReference => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name, uid: `u-${name}`, controller: true });
const obj = (name: string, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject => ({ metadata: { name, namespace: 'ns', ...extra } });

function fakeHost() {
  const clock = new FakeClock();
  const runnables: Runnable[] = [];
  const events: { name: string | undefined; reason: string; note: string }[] = [];
  const cleared: ScaleExpectations[] = [];
  const warnings: string[] = [];
  const logger = { ...silentLogger(), child: () => logger, warn: (_o: unknown, msg: string) => void warnings.push(msg) } as unknown as ControllerHost['logger'];
  const recorder = { event: (regarding: KubeObject, _t: string, reason: string, _a: string, note: string) => void events.push({ name: regarding.metadata?.name, reason, note }) } as unknown as EventRecorder;
  const host: ControllerHost = {
    clock,
    logger,
    metrics: createMetrics(),
    controllerDefaults: () => ({ clock, logger, reconcileTimeoutMs: 0 }),
    eventRecorder: () => recorder,
    clearsAtShutdown: (e) => void cleared.push(e),
    add: (r) => void runnables.push(r),
  };
  return { host, clock, runnables, events, cleared, warnings };
}

async function settle(clock: FakeClock, ms = 0): Promise<void> {
  await clock.advance(ms);
  for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
  await flushMicrotasks();
}

/** Runs the one runnable the builder registered until the returned stop is called. */
function run(runnables: Runnable[]): () => Promise<void> {
  expect(runnables).toHaveLength(1);
  const stop = new AbortController();
  const running = runnables[0]!.start(stop.signal);
  return async () => {
    stop.abort();
    await running;
  };
}

const recording = (seen: string[], action: ReconcileAction = done()): ObjectReconciler<KubeObject> => (_obj, ctx) => {
  seen.push(ctx.key);
  return Promise.resolve(action);
};

describe('ControllerBuilder', () => {
  it('maps the primary to its own key, owned objects to their owner, orphans and other sources as declared', async () => {
    const f = fakeHost();
    const [cloneSets, pods, services] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const seen: string[] = [];
    new ControllerBuilder(f.host, 'demo')
      .for(cloneSets, { groupKind: OWNER, when: (cs) => cs.metadata?.name !== 'ignored' })
      .owns(pods, { orphans: () => 'ns/adopter' })
      .watches(services, () => ['ns/a', 'ns/b'])
      .complete(() => recording(seen));
    cloneSets.seed(obj('a'), obj('b'), obj('adopter'));
    const stop = run(f.runnables);
    cloneSets.add(obj('web'));
    cloneSets.add(obj('ignored'));
    pods.add(obj('web-1', { ownerReferences: [ownerRef('web')] }));
    pods.add(obj('rs-1', { ownerReferences: [{ ...ownerRef('rs'), apiVersion: 'apps/v1', kind: 'ReplicaSet' }] }));
    pods.add(obj('bare'));
    services.add(obj('svc'));
    await settle(f.clock);
    expect(seen.sort()).toEqual(['ns/a', 'ns/adopter', 'ns/b', 'ns/web']);
    await stop();
  });

  it('an owned object meets its expectation before the enqueue it causes', async () => {
    const f = fakeHost();
    const [cloneSets, pods] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const satisfied: boolean[] = [];
    let expectations: ScaleExpectations | undefined;
    new ControllerBuilder(f.host, 'demo')
      .for(cloneSets, { groupKind: OWNER })
      .owns(pods, { expectations: (p) => p.metadata?.name })
      .complete((c) => {
        expectations = c.expectations;
        return (_cs, ctx) => {
          satisfied.push(c.expectations.satisfied(ctx.key));
          return Promise.resolve(done());
        };
      });
    expect(f.cleared).toEqual([expectations]);
    cloneSets.seed(obj('web'));
    const stop = run(f.runnables);
    expectations!.expect('ns/web', 'create', 'web-1');
    expectations!.expect('ns/web', 'delete', 'web-0');
    pods.add(obj('web-1', { ownerReferences: [ownerRef('web')] }));
    await settle(f.clock);
    pods.update(obj('web-0', { ownerReferences: [ownerRef('web')] }), obj('web-0', { ownerReferences: [ownerRef('web')], deletionTimestamp: '2024-01-01T00:00:00Z' }));
    await settle(f.clock);
    expect(satisfied).toEqual([false, true]);
    await stop();
  });

  it('on a shard, a pod that left the view unmarked holds its owner until the API says it is gone, or it comes back', async () => {
    const f = fakeHost();
    const host: ControllerHost = { ...f.host, ring: { ring: 'r', shard: 's-0' } };
    const [cloneSets, pods] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const reconciled: string[] = [];
    let expectations: ScaleExpectations | undefined;
    // What the API answers for each pod name: the pod (it lives on another shard), undefined (gone) or a failure.
    const api = new Map<string, KubeObject | undefined | Error>();
    const looked: string[] = [];
    new ControllerBuilder(host, 'demo')
      .for(cloneSets, { groupKind: OWNER })
      .owns(pods, {
        expectations: (p) => p.metadata?.name,
        lookup: (p) => {
          const name = p.metadata?.name ?? '';
          looked.push(name);
          const answer = api.get(name);
          return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
        },
      })
      .complete((c) => {
        expectations = c.expectations;
        return recording(reconciled);
      });
    const pod = (name: string, uid = `uid-${name}`): KubeObject => obj(name, { uid, ownerReferences: [ownerRef('web')] });
    cloneSets.seed(obj('web'));
    for (const name of ['moved', 'gone', 'replaced', 'unreadable']) pods.seed(pod(name));
    api.set('moved', pod('moved'));
    api.set('gone', undefined);
    api.set('replaced', pod('replaced', 'uid-new'));
    api.set('unreadable', new Error('connection reset'));
    const stop = run(f.runnables);
    await settle(f.clock);
    const held = (): string[] => expectations!.pending('ns/web').create;

    pods.delete(pod('moved'));
    pods.delete(pod('unreadable'));
    await settle(f.clock);
    expect(looked).toEqual(['moved', 'unreadable']);
    expect(held()).toEqual(['moved', 'unreadable']);
    // Back in view: its hold is met by the add.
    pods.add(pod('moved'));
    await settle(f.clock);
    expect(held()).toEqual(['unreadable']);

    // Gone, or another object under its name: the hold ends at once and the owner is planned again.
    pods.delete(pod('gone'));
    pods.delete(pod('replaced'));
    reconciled.length = 0;
    await settle(f.clock);
    expect(looked).toEqual(['moved', 'unreadable', 'gone', 'replaced']);
    expect(held()).toEqual(['unreadable']);
    expect(reconciled).toContain('ns/web');
    await stop();
  });

  it('keeps the versions of our own writes current from the tracked source, and forgets a gone object', () => {
    const f = fakeHost();
    const pods = new FakeSource<KubeObject>();
    let handles: ControllerHandles | undefined;
    new ControllerBuilder(f.host, 'demo')
      .for(pods)
      .tracksOwnWrites(pods)
      .complete((c) => ((handles = c), recording([])));
    const writes = handles!.ownWrites(pods);
    writes.expect('ns/p', '12');
    expect(writes.satisfied('ns/p', '11')).toBe(false);
    pods.update(obj('p', { resourceVersion: '11' }), obj('p', { resourceVersion: '12' }));
    expect(writes.satisfied('ns/p', '11')).toBe(true);
    writes.expect('ns/p', '20');
    pods.delete(obj('p', { resourceVersion: '12' }));
    expect(writes.satisfied('ns/p', '12')).toBe(true);
    expect(() => handles!.ownWrites(new FakeSource<KubeObject>())).toThrow(/tracksOwnWrites/);
  });

  it('hands the reconciler the cached object; a key behind our own writes waits and is looked at again a second later', async () => {
    const f = fakeHost();
    const [cloneSets, pods] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const seen: string[] = [];
    let handles: ControllerHandles | undefined;
    new ControllerBuilder(f.host, 'demo')
      .for(cloneSets, { groupKind: OWNER })
      .owns(pods)
      .tracksOwnWrites(cloneSets)
      .tracksOwnWrites(pods)
      .complete((c) => {
        handles = c;
        return (cs) => {
          seen.push(`${cs.metadata?.name}@${cs.metadata?.resourceVersion}`);
          return Promise.resolve(done());
        };
      });
    const stop = run(f.runnables);
    cloneSets.add(obj('web', { resourceVersion: '1' }));
    await settle(f.clock);
    expect(seen).toEqual(['web@1']);
    // Our status write returned 2; the cache still shows 1.
    handles!.ownWrites(cloneSets).expect('ns/web', '2');
    handles!.enqueue('ns/web');
    await settle(f.clock);
    expect(seen).toEqual(['web@1']);
    cloneSets.seed(obj('web', { resourceVersion: '2' }));
    await settle(f.clock, 1_000);
    expect(seen).toEqual(['web@1', 'web@2']);
    // Our write on an owned pod returned 8; until its event shows 8 the owner waits; the event brings it back.
    pods.seed(obj('web-1', { resourceVersion: '7', ownerReferences: [ownerRef('web')] }));
    handles!.ownWrites(pods).expect('ns/web-1', '8');
    handles!.enqueue('ns/web');
    await settle(f.clock);
    expect(seen).toEqual(['web@1', 'web@2']);
    pods.update(obj('web-1', { resourceVersion: '7', ownerReferences: [ownerRef('web')] }), obj('web-1', { resourceVersion: '8', ownerReferences: [ownerRef('web')] }));
    await settle(f.clock);
    expect(seen).toEqual(['web@1', 'web@2', 'web@2']);
    await stop();
  });

  it('forgets the kept state of a key whose object is gone or turned away by `when`, without reconciling it', async () => {
    const f = fakeHost();
    const pods = new FakeSource<KubeObject>();
    const seen: string[] = [];
    const forgotten: string[] = [];
    let handles: ControllerHandles | undefined;
    new ControllerBuilder(f.host, 'demo')
      .for(pods, { when: (p) => p.metadata?.labels?.['controlled'] === 'true' })
      .complete((c): ReconcilerParts => {
        handles = c;
        return { reconcile: recording(seen), forget: (key) => void forgotten.push(key) };
      });
    const stop = run(f.runnables);
    const controlled = obj('p', { labels: { controlled: 'true' } });
    pods.add(controlled);
    await settle(f.clock);
    pods.update(controlled, obj('p', { labels: {} }));
    await settle(f.clock);
    handles!.enqueue('ns/never-listed');
    await settle(f.clock);
    expect(seen).toEqual(['ns/p']);
    expect(forgotten).toEqual(['ns/p', 'ns/never-listed']);
    await stop();
  });

  it('enqueues an update only when `changed` accepts it, on the primary and on a watched source; adds, deletes and resyncs always', async () => {
    const f = fakeHost();
    const [rules, cloneSets] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const seen: string[] = [];
    const generationChanged = (a: DeepReadonly<KubeObject>, b: DeepReadonly<KubeObject>): boolean => a.metadata?.generation !== b.metadata?.generation;
    new ControllerBuilder(f.host, 'demo')
      .for(rules, { changed: generationChanged })
      .watches(cloneSets, () => 'ns/rule', { changed: generationChanged })
      .complete(() => recording(seen));
    const stop = run(f.runnables);
    const rule = obj('rule', { generation: 1 });
    rules.add(rule);
    await settle(f.clock);
    rules.update(rule, obj('rule', { generation: 1, resourceVersion: '9' }));
    cloneSets.update(obj('cs', { generation: 1 }), obj('cs', { generation: 1, resourceVersion: '9' }));
    await settle(f.clock);
    expect(seen).toEqual(['ns/rule']);
    rules.update(rule, rule);
    await settle(f.clock);
    cloneSets.update(obj('cs', { generation: 1 }), obj('cs', { generation: 2 }));
    await settle(f.clock);
    expect(seen).toEqual(['ns/rule', 'ns/rule', 'ns/rule']);
    await stop();
  });

  it('refuses to track own writes on a source that is neither the primary nor owned', () => {
    const f = fakeHost();
    expect(() => new ControllerBuilder(f.host, 'demo').for(new FakeSource<KubeObject>()).tracksOwnWrites(new FakeSource<KubeObject>()).complete(() => recording([]))).toThrow(/tracksOwnWrites/);
  });

  it('waits for a waitsFor() cache to sync before any reconcile, and takes none of its events', async () => {
    const f = fakeHost();
    const [primary, nodes] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    nodes.synced = false;
    const seen: string[] = [];
    new ControllerBuilder(f.host, 'demo').for(primary).waitsFor(nodes).complete(() => recording(seen));
    const stop = run(f.runnables);
    primary.add(obj('a'));
    nodes.add(obj('node-1'));
    await settle(f.clock, 1_000);
    expect(seen).toEqual([]);
    nodes.synced = true;
    await settle(f.clock, 1_000);
    expect(seen).toEqual(['ns/a']);
    expect(nodes.handlerCount()).toBe(0);
    await stop();
  });

  it('reconciles the keys a trigger enqueues, and unsubscribes it when the controller stops', async () => {
    const f = fakeHost();
    const seen: string[] = [];
    let push: ((key: string) => void) | undefined;
    let unsubscribed = false;
    const primary = new FakeSource<KubeObject>();
    primary.seed(obj('decided'));
    new ControllerBuilder(f.host, 'demo')
      .for(primary)
      .triggeredBy((enqueue) => {
        push = enqueue;
        return () => void (unsubscribed = true);
      })
      .complete(() => recording(seen));
    const stop = run(f.runnables);
    push!('ns/decided');
    await settle(f.clock);
    expect(seen).toEqual(['ns/decided']);
    await stop();
    expect(unsubscribed).toBe(true);
  });

  it('runs reactsTo() handlers only while the controller runs', async () => {
    const f = fakeHost();
    const pods = new FakeSource<KubeObject>();
    const reacted: string[] = [];
    new ControllerBuilder(f.host, 'demo')
      .for(new FakeSource<KubeObject>())
      .reactsTo(pods, () => ({ onAdd: (p) => void reacted.push(p.metadata?.name ?? '') }))
      .complete(() => recording([]));
    pods.add(obj('before'));
    const stop = run(f.runnables);
    await settle(f.clock);
    pods.add(obj('leading'));
    await stop();
    pods.add(obj('after'));
    expect(reacted).toEqual(['leading']);
  });

  it('forgets the state of a primary object that left the cache, with its expectations', () => {
    const f = fakeHost();
    const [cloneSets, pods] = [new FakeSource<KubeObject>(), new FakeSource<KubeObject>()];
    const forgotten: string[] = [];
    let expectations: ScaleExpectations | undefined;
    new ControllerBuilder(f.host, 'demo')
      .for(cloneSets, { groupKind: OWNER })
      .owns(pods, { expectations: (p) => p.metadata?.name })
      .complete((c): ReconcilerParts => {
        expectations = c.expectations;
        return { reconcile: recording([]), forget: (key) => void forgotten.push(key) };
      });
    expectations!.expect('ns/web', 'create', 'web-1');
    cloneSets.delete(obj('web'));
    expect(forgotten).toEqual(['ns/web']);
    expect(expectations!.pending('ns/web')).toEqual({ create: [], delete: [] });
  });

  it('releases the reconciler when the controller stops; a failure to release is logged, not thrown', async () => {
    const f = fakeHost();
    let released = 0;
    new ControllerBuilder(f.host, 'demo')
      .for(new FakeSource<KubeObject>())
      .complete(() => ({
        reconcile: recording([]),
        stop: () => {
          released++;
          return Promise.reject(new Error('socket already closed'));
        },
      }));
    const stop = run(f.runnables);
    await settle(f.clock);
    expect(released).toBe(0);
    await stop();
    expect(released).toBe(1);
    expect(f.warnings).toEqual(['releasing the reconciler at stop failed']);
  });

  it('records the Warning a failed reconcile names, with the error as its note', async () => {
    const f = fakeHost();
    const pods = new FakeSource<KubeObject>();
    new ControllerBuilder(f.host, 'demo')
      .for(pods)
      .recordsEvents('demo-controller', 'me')
      .complete(() => () => Promise.reject(new ReconcileError('patching labels: quota exceeded', { causes: [new Error('quota exceeded')], event: { regarding: obj('p'), reason: 'LifecycleWriteFailed', action: 'Update' } })));
    const stop = run(f.runnables);
    pods.add(obj('p'));
    await settle(f.clock);
    expect(f.events).toEqual([{ name: 'p', reason: 'LifecycleWriteFailed', note: 'patching labels: quota exceeded' }]);
    await stop();
  });

  it('refuses a declaration without a primary, or owns() without the primary kind', () => {
    const f = fakeHost();
    expect(() => new ControllerBuilder(f.host, 'demo').complete(() => recording([]))).toThrow(/for\(\)/);
    expect(() => new ControllerBuilder(f.host, 'demo').for(new FakeSource<KubeObject>()).owns(new FakeSource<KubeObject>()).complete(() => recording([]))).toThrow(/groupKind/);
    expect(() => new ControllerBuilder(f.host, 'demo').for(new FakeSource<KubeObject>()).complete((c) => (c.recorder, recording([])))).toThrow(/recordsEvents/);
  });
});
