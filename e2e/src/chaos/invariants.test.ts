import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSettledClaims, checkSnapshot, emptyHistory, type Limits, type PodView, type PvcView, type Snapshot } from './invariants.ts';

const CS = 'cs-uid';
const limits: Limits = { cloneSetUid: CS, replicas: 3, maxSurge: 1, maxUnavailable: 1, checkAvailability: true, withPvcs: true };
const pod = (id: string, o: Partial<PodView> = {}): PodView => ({ name: `web-${id}`, uid: `pod-${id}`, instanceId: id, ready: true, terminating: false, ...o });
const pvc = (id: string, o: Partial<PvcView> = {}): PvcView => ({ name: `data-web-${id}`, uid: `pvc-${id}`, instanceId: id, ownerUids: [CS], terminating: false, ...o });
const healthy: Snapshot = { pods: ['a', 'b', 'c'].map((id) => pod(id)), pvcs: ['a', 'b', 'c'].map((id) => pvc(id)) };
const kinds = (history: ReturnType<typeof emptyHistory>, snap: Snapshot, l: Limits = limits): string[] =>
  checkSnapshot(history, snap, l).violations.map((v) => v.invariant);
const after = (first: Snapshot): ReturnType<typeof emptyHistory> => checkSnapshot(emptyHistory(), first, limits).history;

describe('checkSnapshot', () => {
  it.each<[string, Snapshot, string[]]>([
    ['a healthy set', healthy, []],
    ['one surge pod not ready yet', { ...healthy, pods: [...healthy.pods, pod('d', { ready: false })], pvcs: [...healthy.pvcs, pvc('d')] }, []],
    ['two surge pods', { ...healthy, pods: [...healthy.pods, pod('d'), pod('e')], pvcs: [...healthy.pvcs, pvc('d'), pvc('e')] }, ['surge']],
    ['terminating pods do not count against the surge', { ...healthy, pods: [...healthy.pods, pod('d'), pod('e', { terminating: true })], pvcs: [...healthy.pvcs, pvc('d'), pvc('e')] }, []],
    ['two unavailable of maxUnavailable 1', { ...healthy, pods: [pod('a'), pod('b', { ready: false }), pod('c', { ready: false })] }, ['unavailable']],
    ['a terminating ready pod is unavailable', { ...healthy, pods: [pod('a'), pod('b', { ready: false }), pod('c', { terminating: true })] }, ['unavailable']],
    ['one id on two pods', { ...healthy, pods: [pod('a'), pod('b'), pod('b', { name: 'web-x', uid: 'other' })] }, ['instance-id']],
    ['a pod without an id', { ...healthy, pods: [pod('a'), pod('b'), pod('c', { instanceId: undefined })] }, ['instance-id']],
    ['a PVC owned by someone else', { ...healthy, pvcs: [pvc('a'), pvc('b'), pvc('c', { ownerUids: ['stranger'] })] }, ['pvc-owner']],
    ['a PVC handed to its pod (disablePVCReuse)', { ...healthy, pvcs: [pvc('a'), pvc('b'), pvc('c', { ownerUids: ['pod-c'] })] }, []],
  ])('%s', (_name, snap, expected) => {
    expect(kinds(emptyHistory(), snap)).toEqual(expected);
  });

  it('does not check availability while the CloneSet is first coming up', () => {
    expect(kinds(emptyHistory(), { ...healthy, pods: healthy.pods.map((p) => ({ ...p, ready: false })) }, { ...limits, checkAvailability: false })).toEqual([]);
  });

  it('catches a PVC deleted while its pod lives, between two samples', () => {
    expect(kinds(after(healthy), { ...healthy, pvcs: [pvc('a'), pvc('b')] })).toEqual(['pvc-deleted-under-pod']);
    expect(kinds(after(healthy), { ...healthy, pvcs: [pvc('a'), pvc('b'), pvc('c', { terminating: true })] })).toEqual(['pvc-deleted-under-pod']);
  });

  it('catches a pod that took the id of a claim being deleted (a replacement that can never schedule)', () => {
    const podGone: Snapshot = { pods: [pod('a'), pod('b'), pod('c', { terminating: true })], pvcs: [pvc('a'), pvc('b'), pvc('c', { terminating: true })] };
    const l = { ...limits, checkAvailability: false };
    const h = checkSnapshot(after(healthy), podGone, l).history;
    const replacement = pod('c', { uid: 'pod-c2', ready: false });
    expect(kinds(h, { pods: [pod('a'), pod('b'), replacement], pvcs: [pvc('a'), pvc('b'), pvc('c', { terminating: true })] }, l)).toEqual(['pvc-deleted-under-pod']);
    // Once the old claim is gone and the replacement has its own, all is well.
    expect(kinds(h, { pods: [pod('a'), pod('b'), replacement], pvcs: [pvc('a'), pvc('b'), pvc('c', { uid: 'pvc-c2' })] }, l)).toEqual([]);
  });

  it('allows a PVC to go once its pod went', () => {
    const podGone: Snapshot = { pods: [pod('a'), pod('b'), pod('c', { terminating: true })], pvcs: healthy.pvcs };
    const l = { ...limits, checkAvailability: false };
    const h = checkSnapshot(after(healthy), podGone, l).history;
    expect(kinds(h, { pods: [pod('a'), pod('b')], pvcs: [pvc('a'), pvc('b')] }, l)).toEqual([]);
  });

  it('catches a pod whose instance id changes', () => {
    expect(kinds(after(healthy), { ...healthy, pods: [pod('a'), pod('b'), pod('c', { instanceId: 'z' })] })).toContain('instance-id');
  });

  it('property: any set of distinct ids, each with its own claim, within the limits, passes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{5}$/), { minLength: 1, maxLength: 30 }), fc.nat(5), (ids, surge) => {
        const l = { ...limits, replicas: ids.length, maxSurge: surge, maxUnavailable: 0 };
        const snap = { pods: ids.map((id) => pod(id)), pvcs: ids.map((id) => pvc(id)) };
        const first = checkSnapshot(emptyHistory(), snap, l);
        expect(first.violations).toEqual([]);
        expect(checkSnapshot(first.history, snap, l).violations).toEqual([]);
      }),
    );
  });

  it('property: duplicating any pod\'s id is caught', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{5}$/), { minLength: 2, maxLength: 30 }), fc.nat(), (ids, pick) => {
        const dup = ids[pick % ids.length]!;
        const pods = [...ids.map((id) => pod(id)), pod(dup, { uid: 'dup', name: 'web-dup' })];
        const l = { ...limits, replicas: pods.length, withPvcs: false };
        expect(checkSnapshot(emptyHistory(), { pods, pvcs: [] }, l).violations.map((v) => v.invariant)).toContain('instance-id');
      }),
    );
  });
});

describe('checkSnapshot following the spec (replicas changed mid-run)', () => {
  const S = 2;
  const l: Limits = { cloneSetUid: CS, replicas: 12, maxSurge: S, maxUnavailable: 2, checkAvailability: true, withPvcs: false };
  const pods = (n: number, ready = n): PodView[] => Array.from({ length: n }, (_, i) => pod(`p${i}`, { ready: i < ready }));
  const sample = (n: number, cs: { replicas: number; generation: number; observedGeneration: number }, ready = n): Snapshot => ({ pods: pods(n, ready), pvcs: [], cloneSet: cs });
  /** Runs the samples in order; the kinds each one reported. */
  const run = (snaps: Snapshot[]): string[][] => {
    let h = emptyHistory();
    return snaps.map((snap) => {
      const r = checkSnapshot(h, snap, l);
      h = r.history;
      return r.violations.map((v) => v.invariant);
    });
  };

  it('pods created under replicas 14 may stand after replicas went back to 12, until the controller saw it and they fit', () => {
    expect(
      run([
        sample(12, { replicas: 12, generation: 1, observedGeneration: 1 }),
        sample(15, { replicas: 14, generation: 2, observedGeneration: 2 }, 12),
        // Back to 12 while the apiserver refuses the controller's writes: the 15 stand, allowed.
        sample(15, { replicas: 12, generation: 3, observedGeneration: 2 }, 13),
        sample(15, { replicas: 12, generation: 3, observedGeneration: 3 }, 13),
        // The controller saw 12 and the pods fit: from now on 12 + 2 binds.
        sample(14, { replicas: 12, generation: 3, observedGeneration: 3 }),
        sample(15, { replicas: 12, generation: 3, observedGeneration: 3 }),
      ]),
    ).toEqual([[], [], [], [], [], ['surge']]);
  });

  it('a surge above the largest count in force is caught at once', () => {
    expect(run([sample(12, { replicas: 12, generation: 1, observedGeneration: 1 }), sample(17, { replicas: 14, generation: 2, observedGeneration: 1 })])).toEqual([[], ['surge']]);
  });

  it('availability is held to the smallest count in force: a scale-up does not need its new pods ready yet', () => {
    expect(
      run([
        sample(12, { replicas: 12, generation: 1, observedGeneration: 1 }),
        // 14 wanted, 12 ready: 2 short of 14, fine; 11 ready of 14 with 12 still in force: 1 short.
        sample(14, { replicas: 14, generation: 2, observedGeneration: 2 }, 11),
        sample(14, { replicas: 14, generation: 2, observedGeneration: 2 }, 12),
        // 14 now binds: 11 ready is 3 short.
        sample(14, { replicas: 14, generation: 2, observedGeneration: 2 }, 11),
      ]),
    ).toEqual([[], [], [], ['unavailable']]);
  });

  it('property: with the spec never changed, following it checks exactly what limits.replicas checks', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ n: fc.nat(20), ready: fc.nat(20) }), { minLength: 1, maxLength: 8 }), (samples) => {
        let followed = emptyHistory();
        let fixed = emptyHistory();
        for (const { n, ready } of samples) {
          const a = checkSnapshot(followed, sample(n, { replicas: 12, generation: 1, observedGeneration: 1 }, ready), l);
          const b = checkSnapshot(fixed, { pods: pods(n, ready), pvcs: [] }, l);
          expect(a.violations).toEqual(b.violations);
          followed = a.history;
          fixed = b.history;
        }
      }),
    );
  });
});

describe('checkSettledClaims', () => {
  const bound = new Set(['data-web-a', 'data-web-b', 'data-web-c']);
  it('passes when every active pod has its bound claim and none is orphaned', () => {
    expect(checkSettledClaims(healthy, ['data'], 'web', bound)).toEqual([]);
  });
  it('names a missing, an unbound and an orphaned claim', () => {
    const snap = { pods: [pod('a'), pod('b')], pvcs: [pvc('b'), pvc('c')] };
    expect(checkSettledClaims(snap, ['data'], 'web', new Set(['data-web-c']))).toEqual([
      'pod with id a has no PVC data-web-a',
      'PVC data-web-b not Bound',
      'PVC data-web-c (id c) belongs to no active pod',
    ]);
  });
});
