// Everything one reconcile pass derives once from the observed objects, shared by
// the Scale and Update planners (OpenKruise's CloneSet sync).
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { EXCLUDE_PREPARING_DELETE_LABEL, LifecycleState, type FeatureGates } from './keys.ts';
import { resolveKnobs, type Knobs } from './knobs.ts';
import { isPodAtRevision, lifecycleState, revisionMatches } from './pods/pod-state.ts';
import type { CloneSetLike } from './types.ts';

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

/** A node's labels by node name (the shell reads its cache; only scale-in's topology spreading asks). */
export type NodeLabels = (nodeName: string) => Readonly<Record<string, string>> | undefined;

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
