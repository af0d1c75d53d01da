// A shard's own Lease (timebertt/kubernetes-controller-sharding, docs/implement-sharding.md,
// "Shard Lease"): leader election's machinery on a Lease of its own, whose name equals its
// holderIdentity (the sharder counts a shard whose holder differs from the name as unavailable)
// and whose label names the ring. Released on a clean exit, so the sharder moves the shard's
// objects at once instead of after the lease expires.
import type { LeaderElectionConfig } from '../manager.ts';
import { RING_LEASE_LABEL, type RingMembership } from './ring-labels.ts';

export function shardLease(membership: RingMembership, lease: Omit<LeaderElectionConfig, 'name' | 'identity' | 'labels' | 'releaseOnCancel'>): LeaderElectionConfig {
  return { ...lease, name: membership.shard, identity: membership.shard, labels: { [RING_LEASE_LABEL]: membership.ring }, releaseOnCancel: true };
}
