// The diff numbers of the Scale and Update steps (OpenKruise's calculateDiffsWithExpectation): the
// same calculation, with "new" meaning at the update revision for Update and, for Scale, also a
// pod in PreparingUpdate under PreparingUpdateAsUpdate; surge counts only pods that will be
// re-created, as the Update step will decide it (update-mode.ts).
import type { V1Pod } from '@kubernetes/client-node';
import { findRevision, isNewForScale, isUpdatedPod, revisionNameOf, type PlanContext } from '../context.ts';
import { isAvailable, isSpecifiedDelete, podRevision } from '../pods/pod-state.ts';
import { calculateDiffs, type Diffs } from './diff.ts';
import { updateMode } from './update-mode.ts';

/**
 * Whether moving this pod to its target revision recreates it (surge is only for pods that will be recreated), as the
 * Update step will decide it (update-mode.ts); never under OnDelete.
 */
export function needsRecreate(ctx: PlanContext, pod: V1Pod): boolean {
  if (ctx.updateType === 'OnDelete') return false;
  const to = isUpdatedPod(ctx, pod) ? ctx.currentRevision : ctx.updateRevision;
  return updateMode(ctx, pod, findRevision(ctx, podRevision(pod)), to).kind === 'recreate';
}

function diffsWith(ctx: PlanContext, isNew: (p: V1Pod) => boolean): Diffs {
  return calculateDiffs({
    replicas: ctx.knobs.replicas,
    partition: ctx.knobs.partition,
    maxSurge: ctx.knobs.maxSurge,
    maxUnavailable: ctx.knobs.maxUnavailable,
    scaleMaxUnavailable: ctx.knobs.scaleMaxUnavailable,
    pods: ctx.pods,
    isNew,
    isSpecifiedDelete: (p) => isSpecifiedDelete(p, ctx.podsToDelete),
    isAvailable: (p) => isAvailable(p, ctx.minReadySeconds, ctx.nowMs),
    currentEqualsUpdate: revisionNameOf(ctx.currentRevision) === revisionNameOf(ctx.updateRevision),
    partitionRollback: !!ctx.gates.CloneSetPartitionRollback,
    excludePreparingDelete: ctx.excludePreparingDelete,
    needsRecreate: (p) => needsRecreate(ctx, p),
  });
}

export function scaleDiffs(ctx: PlanContext): Diffs {
  return diffsWith(ctx, (p) => isNewForScale(ctx, p));
}

export function updateDiffs(ctx: PlanContext): Diffs {
  return diffsWith(ctx, (p) => isUpdatedPod(ctx, p));
}
