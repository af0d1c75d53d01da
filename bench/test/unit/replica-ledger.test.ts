import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import { ReplicaLedger } from '../../src/replica-ledger.ts';

const ID = 'apps.kruise.io/cloneset-instance-id';
const pod = (uid: string, id: string, extra: { terminating?: boolean; owner?: string } = {}): KubeObject => ({
  metadata: {
    name: `web-${id}-${uid}`,
    uid,
    labels: { [ID]: id },
    ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: extra.owner ?? 'web', uid: 'cs', controller: true }],
    ...(extra.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
});

describe('the handover ledger', () => {
  it('a replacement after its old pod turned terminating is no duplicate; two live pods of one id are', () => {
    const l = new ReplicaLedger(() => 2);
    l.pod(pod('a', 'x'));
    l.pod(pod('b', 'y'));
    l.pod(pod('a', 'x', { terminating: true }));
    l.pod(pod('c', 'x'));
    expect(l.snapshot()).toEqual({ duplicates: 0, maxOverReplicas: 0, lostPvcs: 0 });
    l.pod(pod('d', 'y'));
    expect(l.snapshot()).toMatchObject({ duplicates: 1, maxOverReplicas: 1 });
    // The same pod again (an update) changes nothing.
    l.pod(pod('d', 'y'));
    expect(l.snapshot()).toMatchObject({ duplicates: 1, maxOverReplicas: 1 });
  });

  it('counts a claim deleted under a pod that stays live as lost, not one whose pod\'s deletion shows up soon after', () => {
    const l = new ReplicaLedger(() => 3);
    l.pod(pod('a', 'x'));
    l.pod(pod('b', 'y'));
    // A recreate update: the claim's deletion seen first, its pod's a moment later.
    l.claimDeleted(pod('pvc-y', 'y'), 0);
    l.pod(pod('b', 'y', { terminating: true }));
    l.claimDeleted(pod('pvc-x', 'x'), 1_000);
    l.settle(5_500);
    expect(l.snapshot().lostPvcs).toBe(0);
    l.settle(6_000);
    expect(l.snapshot().lostPvcs).toBe(1);
    l.settle(60_000);
    expect(l.snapshot().lostPvcs).toBe(1);
    expect(l.liveIds()).toEqual([['web', 'x']]);
  });

  it('keeps CloneSets apart', () => {
    const l = new ReplicaLedger((cs) => (cs === 'web' ? 1 : 5));
    l.pod(pod('a', 'x'));
    l.pod(pod('b', 'x', { owner: 'api' }));
    l.pod(pod('c', 'y', { owner: 'api' }));
    expect(l.snapshot()).toEqual({ duplicates: 0, maxOverReplicas: 0, lostPvcs: 0 });
  });
});
