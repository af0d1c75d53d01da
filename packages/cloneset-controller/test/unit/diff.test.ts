import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { calculateDiffs, type Diffs } from '../../src/core/update/diff.ts';
import { resolveKnobs } from '../../src/core/knobs.ts';
import { isAvailable, isPodAtRevision, isSpecifiedDelete } from '../../src/core/pods/pod-state.ts';
import { NOW, cloneSet, pod, type PodOpts } from './fixtures.ts';

type K = number | string;
function pods(...groups: [number, PodOpts][]): V1Pod[] {
  return groups.flatMap(([n, o]) => Array.from({ length: n }, () => pod(o)));
}
const oldR: PodOpts = { rev: 'cs-old' };
const newR: PodOpts = { rev: 'cs-new' };
const newX: PodOpts = { rev: 'cs-new', ready: false };

function diffs(R: number, P: K, U: K, S: K, ps: V1Pod[], opts: { paused?: boolean; rollback?: boolean } = {}): Diffs {
  const cs = cloneSet({ replicas: R, updateStrategy: { partition: P, maxUnavailable: U, maxSurge: S, paused: opts.paused ?? false } });
  const k = resolveKnobs(cs);
  return calculateDiffs({
    replicas: R,
    partition: k.partition,
    maxSurge: k.maxSurge,
    maxUnavailable: k.maxUnavailable,
    scaleMaxUnavailable: k.scaleMaxUnavailable,
    pods: ps,
    isNew: (p) => isPodAtRevision(p, 'cs-new'),
    isSpecifiedDelete: (p) => isSpecifiedDelete(p, []),
    isAvailable: (p) => isAvailable(p, 0, NOW),
    currentEqualsUpdate: false,
    partitionRollback: opts.rollback ?? true,
    excludePreparingDelete: false,
  });
}

// OpenKruise's `cloneset_sync_utils_test.go` worked examples (rollback gate on unless stated).
describe('calculateDiffs: OpenKruise\'s worked examples', () => {
  it.each<[string, number, K, K, K, V1Pod[], { paused?: boolean; rollback?: boolean }, Partial<Diffs>]>([
    ['5 old r', 5, 3, 1, 0, pods([5, oldR]), {}, { updateNum: 2, updateMaxUnavailable: 1, scaleUpNum: 0, useSurge: 0 }],
    ['5 old r, surge', 5, 3, 1, 1, pods([5, oldR]), {}, { scaleUpNum: 1, scaleUpNumOld: 0, useSurge: 1, updateNum: 2, updateMaxUnavailable: 1 }],
    ['5 old r + 1 new x', 5, 3, 1, 1, pods([5, oldR], [1, newX]), {}, { useSurge: 1, updateNum: 1, updateMaxUnavailable: 2, scaleUpNum: 0, scaleDownNum: 0 }],
    [
      '4 old r + 1 new Updating + 1 new x',
      5, 3, 1, 1,
      pods([4, oldR], [1, { ...newR, state: 'Updating' }], [1, newX]),
      {},
      { scaleDownNum: 1, scaleDownNumOld: 1, deleteReadyLimit: 0 },
    ],
    ['4 old r + 1 new r + 1 new x', 5, 3, 1, 1, pods([4, oldR], [1, newR], [1, newX]), {}, { scaleDownNum: 1, scaleDownNumOld: 1, deleteReadyLimit: 1 }],
    ['99% partition', 5, '99%', 3, 2, pods([5, oldR]), {}, { scaleUpNum: 1, useSurge: 1, updateNum: 1, updateMaxUnavailable: 3 }],
    ['percent knobs (S ceil, U floor)', 5, '99%', '40%', '30%', pods([5, oldR]), {}, { useSurge: 1, updateMaxUnavailable: 2 }],
    ['U floor(1.5)=1', 5, '99%', '30%', '30%', pods([5, oldR]), {}, { updateMaxUnavailable: 1 }],
    ['rollback, gate on', 5, 4, 2, 0, pods([4, newR], [1, oldR]), {}, { updateNum: -3, updateMaxUnavailable: 2 }],
    ['rollback, gate off', 5, 4, 1, 0, pods([1, oldR], [4, newR]), { rollback: false }, { updateNum: 0, updateMaxUnavailable: 0, scaleUpNum: 0, scaleDownNum: 0 }],
    ['specified delete, create first', 5, 0, 0, 1, pods([4, newR], [1, { ...newR, sd: true }]), {}, { scaleUpNum: 1, useSurge: 1 }],
    ['specified delete, now delete', 5, 0, 0, 1, pods([5, newR], [1, { ...newR, sd: true }]), {}, { deleteReadyLimit: 1, useSurge: 1, scaleUpNum: 0 }],
    ['not-ready specified deletes', 4, 0, 1, 0, pods([3, newR], [2, { ...newX, sd: true }]), {}, { deleteReadyLimit: 2 }],
    ['paused forces S=0', 5, 0, 0, 3, pods([3, oldR]), { paused: true }, { scaleUpNum: 2, scaleUpNumOld: 0, useSurge: 0 }],
    ['paused scale down', 3, 0, 0, 3, pods([5, oldR]), { paused: true }, { scaleDownNum: 2, deleteReadyLimit: 2 }],
  ])('%s', (_name, R, P, U, S, ps, opts, want) => {
    expect(diffs(R, P, U, S, ps, opts)).toMatchObject(want);
  });
});

describe('calculateDiffs: other rules', () => {
  it('specified-delete pods are never unavailable', () => {
    const d = diffs(3, 0, 1, 0, pods([2, newR], [1, { ...newX, sd: true }]));
    expect(d.tallies.totalUnavailable).toBe(0);
  });

  it('scaleUpLimit = min(scaleUpNum, SU - T_unavail)', () => {
    const cs = cloneSet({ replicas: 5, scaleStrategy: { maxUnavailable: 2 } });
    const k = resolveKnobs(cs);
    const d = calculateDiffs({
      ...k,
      pods: pods([1, newX], [1, newR]),
      isNew: () => true,
      isSpecifiedDelete: () => false,
      isAvailable: (p) => isAvailable(p, 0, NOW),
      currentEqualsUpdate: true,
      partitionRollback: false,
      excludePreparingDelete: false,
    });
    expect(d.scaleUpNum).toBe(3);
    expect(d.scaleUpLimit).toBe(1);
  });

  it('excluding PreparingDelete pods from the count creates their replacement', () => {
    const ps = pods([2, newR], [1, { ...newR, state: 'PreparingDelete' }]);
    const base = { replicas: 3, partition: 0, maxSurge: 0, maxUnavailable: 1, scaleMaxUnavailable: 100, pods: ps, isNew: () => true, isSpecifiedDelete: () => false, isAvailable: (p: V1Pod) => isAvailable(p, 0, NOW), currentEqualsUpdate: true, partitionRollback: false };
    expect(calculateDiffs({ ...base, excludePreparingDelete: false }).scaleUpNum).toBe(0);
    expect(calculateDiffs({ ...base, excludePreparingDelete: true }).scaleUpNum).toBe(1);
  });

  it('no update surge for pods updated in place (kruise #2369)', () => {
    const ps = pods([5, oldR]);
    const base = { replicas: 5, partition: 0, maxSurge: 2, maxUnavailable: 1, scaleMaxUnavailable: 100, pods: ps, isNew: (p: V1Pod) => isPodAtRevision(p, 'cs-new'), isSpecifiedDelete: () => false, isAvailable: (p: V1Pod) => isAvailable(p, 0, NOW), currentEqualsUpdate: false, partitionRollback: false, excludePreparingDelete: false };
    expect(calculateDiffs(base).useSurge).toBe(2);
    expect(calculateDiffs({ ...base, needsRecreate: () => false }).useSurge).toBe(0);
    expect(calculateDiffs({ ...base, needsRecreate: () => false }).scaleUpNum).toBe(0);
    let n = 0;
    expect(calculateDiffs({ ...base, needsRecreate: () => n++ < 1 }).useSurge).toBe(1);
  });
});
