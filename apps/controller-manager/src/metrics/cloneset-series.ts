// What one CloneSet's status says about its rollout, as gauge values (pure: read at scrape time).
import type { CloneSet } from '@cloneset-suite/api-types';

export const REPLICA_STATES = ['desired', 'current', 'updated', 'ready', 'available', 'unavailable', 'updated_ready'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

type CloneSetLike = Pick<CloneSet, 'spec' | 'status'>;

/** Replicas per state; unavailable is desired minus available (never negative), as kubectl shows it. */
export function replicasByState(cs: CloneSetLike): Record<ReplicaState, number> {
  const s = cs.status;
  const desired = cs.spec?.replicas ?? 1;
  const available = s?.availableReplicas ?? 0;
  return {
    desired,
    current: s?.replicas ?? 0,
    updated: s?.updatedReplicas ?? 0,
    ready: s?.readyReplicas ?? 0,
    available,
    unavailable: Math.max(0, desired - available),
    updated_ready: s?.updatedReadyReplicas ?? 0,
  };
}

/** Whether the Progressing condition says the rollout missed its progressDeadlineSeconds. */
export function progressDeadlineExceeded(cs: CloneSetLike): boolean {
  const c = cs.status?.conditions?.find((x) => x.type === 'Progressing');
  return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded';
}
