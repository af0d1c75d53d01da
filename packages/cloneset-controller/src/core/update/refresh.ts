// Step 1 of Update (OpenKruise's pod refresh): refresh every claimed pod, even when paused: grace
// period handling, InPlaceUpdateReady, lifecycle state transitions, hash back-fill.
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { findRevision, isUpdatedPod, revisionNameOf, type PlanContext } from '../context.ts';
import { revisionDiff } from './update-mode.ts';
import {
  INPLACE_UPDATE_READY,
  INPLACE_UPDATE_STATE_ANNOTATION,
  KRUISE_POD_READY,
  LifecycleState,
  POD_TEMPLATE_HASH_LABEL,
  PRE_UPDATE_HOOK_KEY,
} from '../keys.ts';
import { isAllHooked, hasReadinessGate, kruisePodReadyChange, statePatch } from '../lifecycle/lifecycle.ts';
import { PASS_LIMIT_REQUEUE_MS, passBudget, type PassBudget } from '../pass-limits.ts';
import { setPodConditions } from '../pods/pod-conditions.ts';
import { podVersionMark } from '../pods/pod-memo.ts';
import { emptyPlan, minRequeue, type InPlaceUpdateAction, type Plan, type PlanAction, type PodConditionPatch } from '../plan.ts';
import { getCondition, isPodAtRevision, lifecycleState, podLabels, podName, podRevision, revisionMatches, shortHashOf } from '../pods/pod-state.ts';
import { revisionLabels } from '../revisions/revisions.ts';
import {
  graceAnnotationKey,
  isInPlaceUpdateComplete,
  lastContainerStatuses,
  malformedInPlaceAnnotations,
  normaliseImage,
  readGrace,
  readUpdateState,
  stateJson,
  withBatch,
} from './inplace-state.ts';
import { rfc3339, toMillis } from '../time.ts';
import type { Stages } from '../stages.ts';

/** Whether the lifecycle block is defined at all (OpenKruise's lifecycle state machine). */
function lifecycleDefined(ctx: PlanContext): boolean {
  return ctx.cs.spec.lifecycle !== undefined && ctx.cs.spec.lifecycle !== null;
}

/** State after an in-place update completes or a PreparingUpdate is rolled back (OpenKruise's lifecycle state machine). */
function afterUpdateState(ctx: PlanContext, pod: V1Pod): string {
  return lifecycleDefined(ctx) && !isAllHooked(pod, ctx.cs.spec.lifecycle?.inPlaceUpdate)
    ? LifecycleState.Updated
    : LifecycleState.Normal;
}

/**
 * The lifecycle state refresh moves this pod to (OpenKruise's lifecycle state machine), or undefined. `complete` is the
 * in-place completion check.
 */
export function nextLifecycleState(ctx: PlanContext, pod: V1Pod, complete: boolean): string | undefined {
  const lc = ctx.cs.spec.lifecycle;
  switch (lifecycleState(pod)) {
    case LifecycleState.PreparingNormal:
      if (lc?.preNormal) return isAllHooked(pod, lc.preNormal) ? LifecycleState.Normal : undefined;
      // v1.9 rule (#1485): only once scheduled, to avoid racing the scheduler.
      return pod.spec?.nodeName ? LifecycleState.Normal : undefined;
    case LifecycleState.Updating:
      return complete ? afterUpdateState(ctx, pod) : undefined;
    case LifecycleState.PreparingUpdate:
      return isUpdatedPod(ctx, pod) ? afterUpdateState(ctx, pod) : undefined;
    case LifecycleState.Updated:
      return !lc || !lc.inPlaceUpdate || isAllHooked(pod, lc.inPlaceUpdate) ? LifecycleState.Normal : undefined;
    default:
      return undefined;
  }
}

function conditionIsCleanTrue(pod: V1Pod, type: string): boolean {
  const c = getCondition(pod, type);
  return c?.status === 'True' && !c.reason && !c.message;
}

/**
 * Whether `revision` is one a pod may still be moving to: the update revision, or the current
 * one under CloneSetPartitionRollback (the only case pods move back to it). Not the current
 * revision otherwise: once the grace's pod is labelled with the new revision, a 1-replica
 * CloneSet's current revision is that revision, and a revert must still drop it.
 */
function targetRevisions(ctx: PlanContext): V1ControllerRevision[] {
  return ctx.gates.CloneSetPartitionRollback ? [ctx.updateRevision, ctx.currentRevision] : [ctx.updateRevision];
}

function isTarget(ctx: PlanContext, revision: string): boolean {
  return targetRevisions(ctx).some((r) => revisionMatches(revision, revisionNameOf(r)));
}

/**
 * A pod whose pending grace target is stale: when its spec (the images were never patched)
 * already is that of a target revision, only its metadata moves there (labels, state, no
 * grace), so its containers are never touched; completion then brings it back to Normal.
 * Undefined when the spec matches no target: the grace is only dropped.
 */
function settleAtTarget(ctx: PlanContext, pod: V1Pod, graceKey: string): InPlaceUpdateAction | undefined {
  const from = findRevision(ctx, podRevision(pod));
  if (!from) return undefined;
  const specImage = (container: string) => pod.spec?.containers.find((c) => c.name === container)?.image;
  for (const target of targetRevisions(ctx)) {
    const diff = revisionDiff(ctx, from, target);
    // A resize is never pending in a grace period: a target that needs one is reached the usual way.
    if (!diff || Object.keys(diff.resources).length > 0) continue;
    const matches = Object.entries(diff.images).every(([c, image]) => {
      const current = specImage(c);
      return current !== undefined && normaliseImage(current) === normaliseImage(image);
    });
    if (!matches) continue;
    const name = revisionNameOf(target);
    return {
      kind: 'inPlaceUpdate',
      name: podName(pod),
      revision: name,
      labels: { ...diff.labels, ...revisionLabels(name, ctx.gates) },
      annotations: {
        ...diff.annotations,
        [graceKey]: null,
        [INPLACE_UPDATE_STATE_ANNOTATION]: stateJson({ revision: name, updateTimestamp: rfc3339(ctx.nowMs) }),
      },
      images: {},
      gracePeriodSeconds: 0,
    };
  }
  return undefined;
}

/** Refresh one pod; returns its actions, whether a label was patched, and a requeue delay (ms). */
export function refreshPod(ctx: PlanContext, pod: V1Pod): { actions: PlanAction[]; labelPatched: boolean; requeueMs?: number } {
  const actions: PlanAction[] = [];
  const name = podName(pod);
  let requeueMs: number | undefined;

  // Annotations another writer garbled read as absent (the grace is dropped below, the state
  // here), said once by a Warning: they never wedge the CloneSet.
  const malformed = malformedInPlaceAnnotations(pod);
  for (const key of [malformed.grace, malformed.state]) {
    if (key === undefined) continue;
    const message = `pod ${name}: annotation ${key} is not valid in-place update data; treated as absent and removed`;
    actions.push({ kind: 'event', type: 'Warning', reason: 'InvalidInPlaceUpdateAnnotation', message });
  }
  if (malformed.state !== undefined) actions.push({ kind: 'patchPod', name, reason: 'DropMalformedAnnotation', annotations: { [malformed.state]: null } });

  // Grace period: drop on rollback, settle when the target moved, wait, or apply the pending spec (OpenKruise's pod refresh).
  const graceKey = graceAnnotationKey(pod);
  const grace = readGrace(pod);
  let gracePending = false;
  if (graceKey !== undefined) {
    const state = readUpdateState(pod);
    if (!grace || !isPodAtRevision(pod, grace.revision)) {
      actions.push({ kind: 'patchPod', name, reason: 'DropInPlaceGrace', annotations: { [graceKey]: null } });
    } else if (!isTarget(ctx, grace.revision)) {
      // The update revision changed during the grace period (kruise #418): the pending spec
      // is for a revision nobody wants any more. Never apply it.
      const settle = settleAtTarget(ctx, pod, graceKey);
      actions.push(settle ?? { kind: 'patchPod', name, reason: 'DropInPlaceGrace', annotations: { [graceKey]: null } });
      gracePending = settle !== undefined;
    } else {
      // The state's timestamp has whole seconds (metav1.Time): read it as the end of its second,
      // so the pod waits at least the full grace period, never up to a second less.
      const stamped = toMillis(state?.updateTimestamp);
      const since = stamped === undefined ? ctx.nowMs : stamped + (stamped % 1000 === 0 ? 999 : 0);
      const remainingMs = since + grace.graceSeconds * 1000 - ctx.nowMs;
      if (remainingMs > 0) {
        requeueMs = Math.ceil(remainingMs / 1000) * 1000;
        gracePending = true;
      } else {
        const images = grace.containerImages ?? {};
        const newState = withBatch(
          {
            ...(state ?? { revision: grace.revision, updateTimestamp: '' }),
            updateImages: Object.keys(images).length > 0,
            lastContainerStatuses: lastContainerStatuses(pod, Object.keys(images)),
          },
          Object.keys(images),
          ctx.nowMs,
        );
        actions.push({
          kind: 'inPlaceUpdate',
          name,
          revision: grace.revision,
          labels: {},
          annotations: { [graceKey]: null, [INPLACE_UPDATE_STATE_ANNOTATION]: stateJson(newState) },
          images,
          gracePeriodSeconds: 0,
        });
        gracePending = true; // the images land with this write; completion is seen next pass
      }
    }
  }

  const complete = !gracePending && graceKey === undefined && isInPlaceUpdateComplete(pod);

  // Readiness gates: InPlaceUpdateReady True once complete; KruisePodReady initialised
  // True on pods that carry the gate but no condition (both gates are set True on create).
  const conditions: PodConditionPatch[] = [];
  if (complete && hasReadinessGate(pod, INPLACE_UPDATE_READY) && !conditionIsCleanTrue(pod, INPLACE_UPDATE_READY)) {
    conditions.push({ type: INPLACE_UPDATE_READY, status: 'True' });
  }
  if (hasReadinessGate(pod, KRUISE_POD_READY) && !getCondition(pod, KRUISE_POD_READY)) {
    conditions.push({ type: KRUISE_POD_READY, status: 'True' });
  }

  // Lifecycle transition (OpenKruise's lifecycle state machine) with the KruisePodReady bookkeeping applied first.
  const from = lifecycleState(pod);
  const to = nextLifecycleState(ctx, pod, complete);
  let labelPatched = false;
  const labels: Record<string, string> = {};
  if (!podLabels(pod)[POD_TEMPLATE_HASH_LABEL] && podRevision(pod) !== '') {
    labels[POD_TEMPLATE_HASH_LABEL] = shortHashOf(podRevision(pod));
  }
  if (to !== undefined) {
    // A fix over OpenKruise: clear preUpdateHook on any exit from PreparingUpdate, and on entering Updated.
    if (from === LifecycleState.PreparingUpdate || to === LifecycleState.Updated) {
      const c = kruisePodReadyChange(pod, { remove: PRE_UPDATE_HOOK_KEY });
      if (c) conditions.push(c);
    }
    if (conditions.length > 0) actions.push(setPodConditions(pod, conditions, ctx.nowMs));
    actions.push(statePatch(pod, to, ctx.nowMs, Object.keys(labels).length > 0 ? { labels } : {}));
    labelPatched = true;
  } else {
    if (conditions.length > 0) actions.push(setPodConditions(pod, conditions, ctx.nowMs));
    if (Object.keys(labels).length > 0) {
      actions.push({ kind: 'patchPod', name, reason: 'BackfillTemplateHash', labels });
      labelPatched = true;
    }
  }
  return { actions, labelPatched, requeueMs };
}

/**
 * Pod versions refresh found nothing to do for, in a state where what it does depends on the pod
 * alone (see refreshReadsPodAlone): every later pass would find the same, so they are skipped
 * until the pod changes (a frozen cached pod is one version: pods/pod-memo.ts). At 10,000 pods
 * this is most of a settled pass's refresh.
 */
const refreshedToNothing = podVersionMark();

/**
 * Serving (no lifecycle state, or Normal: no transition ahead) and no grace period pending: then
 * refreshPod reads neither the CloneSet, its revisions nor the clock, except for the timestamps
 * of writes it plans.
 */
function refreshReadsPodAlone(pod: V1Pod): boolean {
  const state = lifecycleState(pod);
  return (state === '' || state === LifecycleState.Normal) && graceAnnotationKey(pod) === undefined;
}

/**
 * Pods refreshed per stage (the pod versions it skips cost next to nothing and are not counted): a
 * pod version refresh has not read yet (each after a relist) costs up to about 15 us on a busy
 * 2-CPU machine, so 10,000 of them held the event loop up to 150 ms at once.
 */
export const REFRESH_PODS_PER_STAGE = 1_000;

/**
 * Refresh every claimed pod, in stages (../stages.ts) of REFRESH_PODS_PER_STAGE pods read. `stop`
 * is true when a state or hash label was patched. Pods past the pass's write budget keep their
 * writes for a later pass.
 */
export function* planRefreshStages(ctx: PlanContext, budget: PassBudget = passBudget()): Stages<Plan & { stop: boolean }> {
  const plan = emptyPlan();
  let stop = false;
  let read = 0;
  for (const pod of ctx.pods) {
    if (refreshedToNothing.has(pod)) continue;
    if (read > 0 && read % REFRESH_PODS_PER_STAGE === 0) yield;
    read++;
    const r = refreshPod(ctx, pod);
    if (r.actions.length === 0 && refreshReadsPodAlone(pod)) refreshedToNothing.add(pod);
    if (r.actions.length > 0 && !budget.take()) continue;
    plan.actions.push(...r.actions);
    stop ||= r.labelPatched;
    plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, r.requeueMs);
  }
  if (budget.leftOver) plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, PASS_LIMIT_REQUEUE_MS);
  plan.modified = plan.actions.length > 0;
  return { ...plan, stop };
}

