// Everything one reconcile pass derives once from the observed objects, shared by
// the Scale and Update planners (OpenKruise's CloneSet sync).
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { calculateDiffs, type Diffs } from './update/diff.ts';
import { EXCLUDE_PREPARING_DELETE_LABEL, LifecycleState, type FeatureGates } from './keys.ts';
import { resolveKnobs, type Knobs } from './knobs.ts';
import { isAvailable, isPodAtRevision, isSpecifiedDelete, lifecycleState, podRevision, revisionMatches } from './pods/pod-state.ts';
import type { NodeLabels } from './scale/scale-in-order.ts';
import type { CloneSetLike } from './types.ts';
import { updateMode } from './update/update-mode.ts';

/** What a pass observed, as the reconciler hands it to the planners. */
export interface ContextInput {
  cs: CloneSetLike;
  gates: FeatureGates;
  nowMs: number;
  /** Random source for instance ids; the only non-determinism, injected. */
  random: () => number;
  /** Active claimed pods. */
  pods: readonly V1Pod[];
  /** Every owned pod object, active or not (PVC handling, name checks). */
  allPods: readonly V1Pod[];
  /** Owned PVCs that are not being deleted. */
  pvcs: readonly V1PersistentVolumeClaim[];
  revisions: readonly V1ControllerRevision[];
  currentRevision: V1ControllerRevision;
  updateRevision: V1ControllerRevision;
  nodeLabels?: NodeLabels;
  /** A node's allocatable cpu and memory, when known (resizes its pods can take). */
  nodeAllocatable?: NodeAllocatable;
  /** How long a Deferred resize may wait before its pod is re-created (resize-fallback.ts). */
  resizeDeferredTimeoutMs?: number;
  /** Any pod of the namespace by name, ours or not (instance id reuse). */
  podNamed?: (name: string) => V1Pod | undefined;
}

export type NodeAllocatable = (node: string) => Readonly<Record<string, string>> | undefined;

/** The input plus what every planner derives from the spec the same way. */
export interface PlanContext extends ContextInput {
  knobs: Knobs;
  podsToDelete: ReadonlySet<string>;
  minReadySeconds: number;
  excludePreparingDelete: boolean;
  updateType: string;
}

export function buildContext(input: ContextInput): PlanContext {
  const { cs } = input;
  const knobs = resolveKnobs(cs);
  const updateType = cs.spec.updateStrategy?.type ?? 'ReCreate';
  // OnDelete has no rolling block (pods move only when deleted): no surge.
  if (updateType === 'OnDelete') knobs.maxSurge = 0;
  return {
    ...input,
    knobs,
    podsToDelete: new Set(cs.spec.scaleStrategy?.podsToDelete ?? []),
    minReadySeconds: cs.spec.minReadySeconds ?? 0,
    excludePreparingDelete:
      cs.metadata.labels?.[EXCLUDE_PREPARING_DELETE_LABEL] === 'true' || !!input.gates.CloneSetScalingExcludePreparingDelete,
    updateType,
  };
}

/** The revision's object name (revisions.ts revisionName builds one from a hash). */
export function revisionNameOf(rev: V1ControllerRevision): string {
  return rev.metadata?.name ?? '';
}

export function findRevision(ctx: PlanContext, label: string): V1ControllerRevision | undefined {
  return ctx.revisions.find((r) => revisionMatches(label, revisionNameOf(r)));
}

/** Update-flavour "new": at updateRevision (OpenKruise's calculateDiffsWithExpectation). */
export function isUpdatedPod(ctx: PlanContext, pod: V1Pod): boolean {
  return isPodAtRevision(pod, revisionNameOf(ctx.updateRevision));
}

/**
 * Scale-flavour "new": also PreparingUpdate under PreparingUpdateAsUpdate (OpenKruise's update features), on unless
 * turned off (off is OpenKruise's default).
 */
export function isNewForScale(ctx: PlanContext, pod: V1Pod): boolean {
  return (
    isUpdatedPod(ctx, pod) || (ctx.gates.PreparingUpdateAsUpdate !== false && lifecycleState(pod) === LifecycleState.PreparingUpdate)
  );
}

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
