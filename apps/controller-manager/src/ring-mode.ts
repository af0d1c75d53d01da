// The manager as a shard of a ControllerRing (README, "Scaling out: a ring of shards"): which
// resources the ring holds, the shard's own Lease in place of leader election, and the shard
// scope its caches get. Without --controller-ring none of this applies.
import { CLONESET_GVK, PODTRANSITIONRULE_GVK } from '@cloneset-suite/api-types';
import { Resources, shardLease, type ManagerOptions, type RingMembership } from '@cloneset-suite/kube-runtime';
import type { ManagerConfig } from './config/flags.ts';

/**
 * What a ControllerRing for this manager lists: CloneSets with what they control (assigned to
 * their CloneSet's shard by the controller reference), and PodTransitionRules on their own.
 */
export const RING_RESOURCES = {
  cloneSets: { group: CLONESET_GVK.group, resource: CLONESET_GVK.plural },
  controlled: [Resources.pods, Resources.persistentVolumeClaims, Resources.controllerRevisions].map((r) => ({ group: r.group, resource: r.resource })),
  podTransitionRules: { group: PODTRANSITIONRULE_GVK.group, resource: PODTRANSITIONRULE_GVK.plural },
} as const;

export function ringMembership(config: ManagerConfig): RingMembership | undefined {
  return config.controllerRing ? { ring: config.controllerRing, shard: config.shardName } : undefined;
}

/** The Manager's options for a shard: its Lease and the shard scope of its caches. */
export function shardOptions(membership: RingMembership, config: ManagerConfig): Required<Pick<ManagerOptions, 'leaderElection' | 'shard'>> {
  return {
    leaderElection: shardLease(membership, {
      namespace: config.leaderElectionNamespace,
      leaseDurationMs: config.leaderElectionLeaseDurationMs,
      renewDeadlineMs: config.leaderElectionRenewDeadlineMs,
      retryPeriodMs: config.leaderElectionRetryPeriodMs,
    }),
    shard: { membership, resources: [RING_RESOURCES.cloneSets, ...RING_RESOURCES.controlled, RING_RESOURCES.podTransitionRules] },
  };
}
