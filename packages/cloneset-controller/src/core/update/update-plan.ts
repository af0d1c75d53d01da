// The Update step (OpenKruise's update): refresh, gates, candidates and order, the
// maxUnavailable walk, then per pod an in-place update (with lifecycle pre-steps)
// or a recreate mark.
import type { V1Pod } from '@kubernetes/client-node';
import { POL_OPERATION_TYPES } from '@cloneset-suite/api-types';
import { findRevision, isUpdatedPod, revisionNameOf, type PlanContext } from '../context.ts';
import { updateDiffs } from './step-diffs.ts';
import type { Diffs } from './diff.ts';
import type { InPlaceDiff } from './inplace.ts';
import { graceAnnotationKey, newUpdateState, stateJson } from './inplace-state.ts';
import {
  INPLACE_UPDATE_GRACE_ANNOTATION,
  INPLACE_UPDATE_READY,
  INPLACE_UPDATE_STATE_ANNOTATION,
  LIFECYCLE_STATE_LABEL,
  LIFECYCLE_TIMESTAMP_ANNOTATION,
  LifecycleState,
  PRE_UPDATE_HOOK_KEY,
} from '../keys.ts';
import { hasReadinessGate, isHooked, kruisePodReadyChange, statePatch } from '../lifecycle/lifecycle.ts';
import { setPodConditions } from '../pods/pod-conditions.ts';
import { PASS_LIMIT_REQUEUE_MS, passBudget } from '../pass-limits.ts';
import { emptyPlan, minRequeue, type Plan, type PlanAction, type PodConditionPatch } from '../plan.ts';
import { isAvailable, isControlled, isPodAtRevision, isPreparingDelete, lifecycleState, podName, podRevision, unavailability } from '../pods/pod-state.ts';
import { inOperationFirst, isBegun, isGranted, throughLifecycle } from '../lifecycle/ops-lifecycle.ts';
import { planRefreshStages } from './refresh.ts';
import { revisionLabels } from '../revisions/revisions.ts';
import { rfc3339 } from '../time.ts';
import { sortForUpdate } from './update-order.ts';
import { updateMode } from './update-mode.ts';
import { recreateMark } from './recreate-mark.ts';
import { planResizeFallbacks } from './resize-fallback.ts';
import { runToEnd, type Stages } from '../stages.ts';
import type { Wait } from '../wait.ts';

/**
 * The maxUnavailable limit: walk the ordered candidates (already truncated to |updateNum|), stopping when
 * the target-revision unavailable count or the total unavailable count would exceed
 * updateMaxUnavailable. Updating an already-unavailable pod costs no total budget. The candidates
 * left over wait for the budget, said with the pods that use it up.
 */
export function limitByMaxUnavailable(
  ctx: PlanContext,
  ordered: readonly V1Pod[],
  targetRevision: string,
  updateMaxUnavailable: number,
): { chosen: V1Pod[]; wait?: Wait } {
  const avail = (p: V1Pod) => isAvailable(p, ctx.minReadySeconds, ctx.nowMs);
  let unavail = ctx.pods.filter((p) => !avail(p)).length;
  const targetUnavail = ctx.pods.filter((p) => !avail(p) && isPodAtRevision(p, targetRevision)).length;
  const chosen: V1Pod[] = [];
  let k = 0;
  for (const pod of ordered) {
    if (targetUnavail + k >= updateMaxUnavailable) break;
    if (avail(pod)) {
      if (unavail >= updateMaxUnavailable) break;
      unavail++;
    }
    k++;
    chosen.push(pod);
  }
  if (chosen.length === ordered.length) return { chosen };
  const unavailable = ctx.pods.flatMap((p) => {
    const why = unavailability(p, ctx.minReadySeconds, ctx.nowMs);
    return why ? [{ pod: podName(p), why }] : [];
  });
  const byName = (a: { pod: string }, b: { pod: string }): number => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0);
  return {
    chosen,
    wait: {
      kind: 'maxUnavailable',
      pods: ordered.slice(chosen.length).map(podName).sort(),
      maxUnavailable: updateMaxUnavailable,
      unavailable: unavailable.sort(byName),
      taking: chosen.map(podName).sort(),
    },
  };
}

/**
 * Candidates for this pass (OpenKruise's update order): wrong revision, not pre-deleting, no pending grace (unless
 * Updated), not a pod the CloneSet began a scale-in on.
 */
export function updateCandidates(ctx: PlanContext, updateNum: number): V1Pod[] {
  return ctx.pods.filter((p) => {
    if (updateNum > 0 === isUpdatedPod(ctx, p)) return false;
    if (isPreparingDelete(p)) return false;
    if (isBegun(p, POL_OPERATION_TYPES.scaleIn)) return false;
    return graceAnnotationKey(p) === undefined || lifecycleState(p) === LifecycleState.Updated;
  });
}

/** In-place update of one pod to `target` (OpenKruise's in-place update), including the lifecycle pre-step. */
function inPlaceUpdate(ctx: PlanContext, pod: V1Pod, target: string, diff: InPlaceDiff): PlanAction[] {
  const hook = ctx.cs.spec.lifecycle?.inPlaceUpdate;
  const state = lifecycleState(pod);
  const name = podName(pod);
  const toPreparing = (extra: Parameters<typeof statePatch>[3] = {}): PlanAction[] => {
    const out: PlanAction[] = [];
    if (hook?.markPodNotReady) {
      const c = kruisePodReadyChange(pod, { add: PRE_UPDATE_HOOK_KEY });
      if (c) out.push(setPodConditions(pod, [c], ctx.nowMs));
    }
    out.push(statePatch(pod, LifecycleState.PreparingUpdate, ctx.nowMs, extra));
    return out;
  };
  switch (state) {
    case '':
    case LifecycleState.PreparingNormal:
    case LifecycleState.Normal:
      if (hook && isHooked(pod, hook)) return toPreparing();
      break;
    case LifecycleState.Updated:
      // A new revision arrived after an update: re-arm the hook, or let refresh move to Normal.
      if (!hook) return [];
      return toPreparing({
        labels: { ...(hook.labelsHandler ?? {}) },
        ...(hook.finalizersHandler?.length ? { addFinalizers: [...hook.finalizersHandler] } : {}),
      });
    case LifecycleState.PreparingUpdate:
      if (isHooked(pod, hook)) return [];
      break;
    case LifecycleState.Updating:
      break;
    default:
      return [];
  }

  const actions: PlanAction[] = [];
  const conditions: PodConditionPatch[] = [];
  const resizes = Object.keys(diff.resources).length > 0;
  // A resize alone restarts no container: the pod keeps serving (OpenKruise's VerticalUpdateOnly);
  // it counts as unavailable while its state is Updating.
  const restartsContainers = !resizes || Object.keys(diff.images).length > 0;
  if (restartsContainers && hasReadinessGate(pod, INPLACE_UPDATE_READY)) {
    conditions.push({ type: INPLACE_UPDATE_READY, status: 'False', reason: 'StartInPlaceUpdate' });
  }
  if (state === LifecycleState.PreparingUpdate) {
    // A fix over OpenKruise: leaving PreparingUpdate clears the preUpdateHook not-ready key.
    const c = kruisePodReadyChange(pod, { remove: PRE_UPDATE_HOOK_KEY });
    if (c) conditions.push(c);
  }
  if (conditions.length > 0) actions.push(setPodConditions(pod, conditions, ctx.nowMs));

  const grace = ctx.cs.spec.updateStrategy?.inPlaceUpdateStrategy?.gracePeriodSeconds ?? 0;
  const deferred = grace > 0 && Object.keys(diff.images).length > 0;
  // The resize goes first and is never deferred (it restarts nothing, so nothing drains): a
  // resize that lands before a failed update write is simply made again, the same values.
  if (resizes) actions.push({ kind: 'resizePod', name, containers: diff.resources });
  const updateState = { ...newUpdateState(target, ctx.nowMs, pod, deferred ? {} : diff.images, deferred), ...(resizes ? { updateResources: true } : {}) };
  const annotations: Record<string, string | null> = {
    ...diff.annotations,
    [LIFECYCLE_TIMESTAMP_ANNOTATION]: rfc3339(ctx.nowMs),
    [INPLACE_UPDATE_STATE_ANNOTATION]: stateJson(updateState),
  };
  if (deferred) {
    annotations[INPLACE_UPDATE_GRACE_ANNOTATION] = JSON.stringify({ revision: target, containerImages: diff.images, graceSeconds: grace });
  }
  actions.push({
    kind: 'inPlaceUpdate',
    name,
    revision: target,
    labels: { ...diff.labels, ...revisionLabels(target, ctx.gates), [LIFECYCLE_STATE_LABEL]: LifecycleState.Updating },
    annotations,
    images: deferred ? {} : diff.images,
    gracePeriodSeconds: grace,
  });
  return actions;
}

/**
 * Finish (README, CloneSet under PodOpsLifecycle): a controlled pod whose granted `update` operation is done, at the
 * update revision with no in-place update running or deferred. Pods refresh writes this pass wait.
 */
export function planFinishes(ctx: PlanContext, busy: ReadonlySet<string>): PlanAction[] {
  return ctx.pods
    .filter(
      (p) =>
        isControlled(p) &&
        isGranted(p, POL_OPERATION_TYPES.update) &&
        !busy.has(podName(p)) &&
        isUpdatedPod(ctx, p) &&
        lifecycleState(p) !== LifecycleState.Updating &&
        graceAnnotationKey(p) === undefined,
    )
    .map((p) => ({ kind: 'finishOperation', name: podName(p), type: POL_OPERATION_TYPES.update }));
}

/**
 * The pods behind the update revision that the partition keeps where they are: those not taken
 * in the update order (`ordered`), by revision. None without a partition.
 */
function partitionWaits(ctx: PlanContext, behind: readonly string[], ordered: ReadonlySet<string>): Wait[] {
  const { partition } = ctx.knobs;
  const kept = behind.filter((n) => !ordered.has(n));
  if (partition <= 0 || !ctx.knobs.partitionValid || kept.length === 0) return [];
  const byRevision: Record<string, string[]> = {};
  const keptSet = new Set(kept);
  for (const p of ctx.pods) {
    if (!keptSet.has(podName(p))) continue;
    const revision = podRevision(p) || '(none)';
    (byRevision[revision] ??= []).push(podName(p));
  }
  const sorted = Object.fromEntries(Object.entries(byRevision).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([rev, names]) => [rev, names.sort()]));
  return [{ kind: 'partition', partition, pods: kept, byRevision: sorted }];
}

/** Why Update stopped before its diff numbers: a refresh label write ends the pass (OpenKruise's pod refresh); OnDelete and paused roll nothing. */
export type UpdateStop = 'refresh' | 'onDelete' | 'paused';

/** The diff numbers Update decided from (OpenKruise's calculateDiffsWithExpectation), or why it stopped before computing them. */
export type UpdateDiffs = { diffs: Diffs } | { stoppedBy: UpdateStop };

export type UpdatePlan = Plan & UpdateDiffs;

export function planUpdate(ctx: PlanContext): UpdatePlan {
  return runToEnd(planUpdateStages(ctx));
}

/** planUpdate in stages (../stages.ts): refresh (in stages of its own) | the diffs | the order | the choice and its writes; each reads every pod. */
export function* planUpdateStages(ctx: PlanContext): Stages<UpdatePlan> {
  // One budget for the pass's pod writes: refresh first, then the updates it leaves room for.
  const budget = passBudget();
  const refresh = yield* planRefreshStages(ctx, budget);
  const refreshed = new Set(refresh.actions.map((a) => ('name' in a ? a.name : '')));
  const plan: Plan = { ...emptyPlan(), actions: [...refresh.actions, ...planFinishes(ctx, refreshed)] };
  if (refresh.requeueAfterMs !== undefined) plan.requeueAfterMs = refresh.requeueAfterMs;
  const done = (decided: UpdateDiffs): UpdatePlan => ({ ...plan, ...decided, modified: plan.actions.length > 0 });
  // Pods not at the update revision, but for those a stalled resize re-creates (their wait says so).
  const behind = (): string[] => ctx.pods.filter((p) => !isUpdatedPod(ctx, p) && !fallbacks.chosen.includes(podName(p))).map(podName).sort();
  const stop = (stoppedBy: UpdateStop): UpdatePlan => {
    const pods = behind();
    if (pods.length > 0) plan.waits.push(stoppedBy === 'onDelete' ? { kind: 'onDelete', pods, revision: revisionNameOf(ctx.updateRevision) } : { kind: stoppedBy, pods });
    return done({ stoppedBy });
  };
  // Stalled resizes are said on every pass (the condition holds while they last), acted on when
  // refresh leaves the pass to the update.
  const fallbacks = planResizeFallbacks(ctx, budget);
  plan.waits.push(...fallbacks.waits);
  plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, fallbacks.requeueAfterMs);
  if (refresh.stop) return stop('refresh');
  plan.actions.push(...fallbacks.actions);
  plan.chosen = new Set(fallbacks.chosen);
  if (ctx.updateType === 'OnDelete') return stop('onDelete');
  if (ctx.cs.spec.updateStrategy?.paused) return stop('paused');
  yield;

  const d = updateDiffs(ctx);
  if (d.updateNum === 0) {
    plan.waits.push(...partitionWaits(ctx, behind(), new Set()));
    return done({ diffs: d });
  }
  yield;
  const target = d.updateNum > 0 ? ctx.updateRevision : ctx.currentRevision;
  const targetName = revisionNameOf(target);
  // Pods already in the CloneSet's update operation go first, so a choice is kept (as Kuperator's CollaSet does).
  const ordered = inOperationFirst(
    sortForUpdate(updateCandidates(ctx, d.updateNum), ctx.cs.spec.updateStrategy, ctx.pods),
    POL_OPERATION_TYPES.update,
  ).slice(0, Math.abs(d.updateNum));
  yield;
  const limited = limitByMaxUnavailable(ctx, ordered, targetName, d.updateMaxUnavailable);
  const chosen = limited.chosen;
  plan.chosen = new Set([...fallbacks.chosen, ...chosen.map(podName)]);
  if (limited.wait) plan.waits.push(limited.wait);
  if (d.updateNum > 0) plan.waits.push(...partitionWaits(ctx, behind(), new Set(ordered.map(podName))));

  for (const pod of chosen) {
    // Chosen either way (its operation is kept); written when the pass has room.
    if (!budget.take()) {
      plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, PASS_LIMIT_REQUEUE_MS);
      break;
    }
    const mode = updateMode(ctx, pod, findRevision(ctx, podRevision(pod)), target);
    switch (mode.kind) {
      case 'inPlace': {
        const gated = throughLifecycle(pod, 'updateInPlace', inPlaceUpdate(ctx, pod, targetName, mode.diff));
        plan.actions.push(...gated.actions);
        plan.waits.push(...gated.waits);
        const grace = ctx.cs.spec.updateStrategy?.inPlaceUpdateStrategy?.gracePeriodSeconds ?? 0;
        if (grace > 0) plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, grace * 1000);
        break;
      }
      case 'refuse':
        plan.errors.push({ condition: 'FailedUpdate', message: mode.message });
        // Users see the refusal where they look first: `kubectl describe clone` (OpenKruise's CloneSet Events).
        plan.actions.push({ kind: 'event', type: 'Warning', reason: 'FailedUpdatePodInPlace', message: `failed to update ${mode.message}` });
        break;
      case 'recreate': {
        // A restart under any strategy included (restart.ts).
        const why = mode.why === undefined ? undefined : { type: 'Warning' as const, reason: 'FailedUpdatePodInPlace', message: `failed to update pod ${podName(pod)} in-place: ${mode.why}; re-creating it` };
        const gated = recreateMark(pod, targetName, why);
        plan.actions.push(...gated.actions);
        plan.waits.push(...gated.waits);
        break;
      }
    }
  }
  return done({ diffs: d });
}
