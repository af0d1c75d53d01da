// status.expectedUpdatedReplicas (OpenKruise's CloneSet status): every replica under OnDelete,
// replicas minus the partition otherwise; a partition that cannot be read (it bypassed admission)
// counts as none to update, 0. kubectl-cloneset's rollout status reads it the same way when the
// status has no count yet.
import { resolveKnobs } from '../knobs.ts';
import type { CloneSetLike } from '../types.ts';

/** `partition`: resolved, or undefined when it cannot be read. */
export function expectedUpdatedCount(replicas: number, onDelete: boolean, partition: number | undefined): number {
  if (onDelete) return replicas;
  return partition === undefined ? 0 : Math.max(replicas - partition, 0);
}

export function expectedUpdatedReplicas(cs: CloneSetLike): number {
  const knobs = resolveKnobs(cs);
  return expectedUpdatedCount(knobs.replicas, cs.spec.updateStrategy?.type === 'OnDelete', knobs.partitionValid ? knobs.partition : undefined);
}
