// A shard's side of the ControllerRing label protocol: names, the drain hand-back write, and what
// an object leaving a shard-filtered cache means for its owner's expectations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/client/types.ts';
import { confirmedLeftView, ownedLeftView } from '../../src/ring/left-view.ts';
import { drainAcknowledgement, drainLabel, isDraining, leftViewReason, ringMembershipError, shardLabel, shardSelector, withShardLabelOf } from '../../src/ring/ring-labels.ts';
import { shardLease } from '../../src/ring/shard-lease.ts';

const RING = 'cloneset-suite';
const SHARD = shardLabel(RING);
const DRAIN = drainLabel(RING);
const obj = (labels: Record<string, string>, extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject => ({ metadata: { name: 'web', namespace: 'ns', resourceVersion: '7', labels, ...extra } });

/** Applies the remove ops of a JSON patch to the labels (the test op checked separately). */
function applyRemovals(labels: Record<string, string>, ops: readonly { op: string; path: string }[]): Record<string, string> {
  const out = { ...labels };
  for (const op of ops) {
    if (op.op !== 'remove') continue;
    const key = op.path.replace('/metadata/labels/', '').replaceAll('~1', '/').replaceAll('~0', '~');
    if (!(key in out)) throw new Error(`remove of a missing label ${key} fails the whole patch`);
    delete out[key];
  }
  return out;
}

describe('ring label names', () => {
  it.each([
    { ring: 'cloneset-suite', shard: 'manager-0', error: undefined },
    { ring: 'a'.repeat(63), shard: 'm', error: undefined },
    { ring: 'a'.repeat(64), shard: 'm', error: '--controller-ring' },
    { ring: 'Ring', shard: 'm', error: '--controller-ring' },
    { ring: 'ring.with.dots', shard: 'm', error: '--controller-ring' },
    { ring: 'r', shard: 'host.example', error: undefined },
    { ring: 'r', shard: 'Host', error: '--shard-name' },
    { ring: 'r', shard: 'm'.repeat(64), error: '--shard-name' },
    { ring: 'r', shard: '', error: '--shard-name' },
  ])('ring $ring shard $shard: $error', ({ ring, shard, error }) => {
    const got = ringMembershipError({ ring, shard });
    if (error) expect(got).toContain(error);
    else expect(got).toBeUndefined();
  });

  it('names the labels and the selector after the ring', () => {
    expect(SHARD).toBe('shard.alpha.sharding.timebertt.dev/cloneset-suite');
    expect(DRAIN).toBe('drain.alpha.sharding.timebertt.dev/cloneset-suite');
    expect(shardSelector({ ring: RING, shard: 'manager-0' })).toBe('shard.alpha.sharding.timebertt.dev/cloneset-suite=manager-0');
  });

  it('a shard Lease is named after the shard, held by it, labelled with its ring, released on exit', () => {
    const lease = shardLease({ ring: RING, shard: 'manager-0' }, { namespace: 'sys', leaseDurationMs: 15_000 });
    expect(lease).toEqual({ namespace: 'sys', leaseDurationMs: 15_000, name: 'manager-0', identity: 'manager-0', labels: { 'alpha.sharding.timebertt.dev/controllerring': RING }, releaseOnCancel: true });
  });
});

describe('drain', () => {
  it.each([
    { labels: { [DRAIN]: 'true', [SHARD]: 'm-0' }, draining: true, removed: [DRAIN, SHARD] },
    { labels: { [DRAIN]: '', [SHARD]: 'm-0', app: 'web' }, draining: true, removed: [DRAIN, SHARD] },
    { labels: { [DRAIN]: 'true' }, draining: true, removed: [DRAIN] },
    { labels: { [SHARD]: 'm-0' }, draining: false, removed: [SHARD] },
    { labels: { [drainLabel('other')]: 'true', [SHARD]: 'm-0' }, draining: false, removed: [SHARD] },
  ])('$labels: draining $draining', ({ labels, draining, removed }) => {
    expect(isDraining(obj(labels), RING)).toBe(draining);
    const patch = drainAcknowledgement(obj(labels), RING);
    expect(patch.type).toBe('json');
    const ops = patch.type === 'json' ? patch.body : [];
    expect(ops[0]).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: '7' });
    expect(Object.keys(labels).filter((k) => !(k in applyRemovals(labels, ops)))).toEqual(removed);
  });

  it('refuses to hand back an object read without a resourceVersion, naming the field', () => {
    expect(() => drainAcknowledgement({ metadata: { name: 'web', labels: { [DRAIN]: 'x' } } }, RING)).toThrow('metadata.resourceVersion');
  });

  it('the hand-back removes exactly the two ring labels that are present, keeps every other, and is tested against the read version', () => {
    const key = fc.oneof(fc.constantFrom(SHARD, DRAIN, drainLabel('other'), shardLabel('other'), 'app', 'a/b~c'), fc.stringMatching(/^[a-z]{1,8}$/));
    fc.assert(
      fc.property(fc.dictionary(key, fc.string({ maxLength: 5 })), fc.stringMatching(/^[1-9][0-9]{0,6}$/), (labels, rv) => {
        const patch = drainAcknowledgement(obj(labels, { resourceVersion: rv }), RING);
        const ops = patch.type === 'json' ? patch.body : [];
        expect(ops[0]).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: rv });
        const after = applyRemovals(labels, ops);
        const expected = Object.fromEntries(Object.entries(labels).filter(([k]) => k !== SHARD && k !== DRAIN));
        expect(after).toEqual(expected);
      }),
    );
  });
});

describe('an object leaving a shard-filtered cache', () => {
  const marked = obj({}, { deletionTimestamp: '2026-01-01T00:00:00Z' });
  const unmarked = obj({});
  it.each([
    { case: 'no ring: a delete is a delete', o: unmarked, sharded: false, deletePending: false, want: 'observe-delete' },
    { case: 'ring, deletion mark seen: deleted', o: marked, sharded: true, deletePending: false, want: 'observe-delete' },
    { case: 'ring, no mark: may have moved, the owner waits', o: unmarked, sharded: true, deletePending: false, want: 'hold-owner' },
    { case: 'ring, no mark but this owner deleted it: its delete', o: unmarked, sharded: true, deletePending: true, want: 'observe-delete' },
  ])('$case', ({ o, sharded, deletePending, want }) => {
    expect(ownedLeftView(o, { sharded, deletePending })).toBe(want);
  });

  it.each([
    { case: 'not found: deleted', current: undefined, want: 'observe-delete' },
    { case: 'terminating: deleted', current: { ...unmarked, metadata: { ...unmarked.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }, want: 'observe-delete' },
    { case: 'another object under its name: deleted', current: { ...unmarked, metadata: { ...unmarked.metadata, uid: 'other' } }, want: 'observe-delete' },
    { case: 'still there (on another shard): the owner keeps waiting', current: unmarked, want: 'hold-owner' },
  ])('read back from the API, $case', ({ current, want }) => {
    expect(confirmedLeftView(unmarked, current)).toBe(want);
  });

  it('reads the deletion mark only', () => {
    expect(leftViewReason(marked)).toBe('deleted');
    expect(leftViewReason(unmarked)).toBe('moved-or-deleted');
  });
});

describe('withShardLabelOf', () => {
  const owner = obj({ [SHARD]: 'm-1', app: 'web' });
  it.each([
    { ring: undefined, ownerObj: owner, want: { app: 'pod' } },
    { ring: RING, ownerObj: owner, want: { app: 'pod', [SHARD]: 'm-1' } },
    { ring: RING, ownerObj: obj({ app: 'web' }), want: { app: 'pod' } },
    { ring: 'other', ownerObj: owner, want: { app: 'pod' } },
  ])('ring $ring', ({ ring, ownerObj, want }) => {
    const pod = { metadata: { name: 'web-abc', labels: { app: 'pod' } } };
    expect(withShardLabelOf(pod, ownerObj, ring).metadata.labels).toEqual(want);
    expect(pod.metadata.labels).toEqual({ app: 'pod' });
  });
});
