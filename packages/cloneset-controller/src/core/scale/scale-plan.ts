// The Scale step (OpenKruise's scale step): cancel PreparingDelete, scale-out, finish pre-deletes,
// specified deletes, scale-in; the first path that writes ends the step.
import type { V1Pod } from '@kubernetes/client-node';
import { POL_OPERATION_TYPES } from '@cloneset-suite/api-types';
import { isNewForScale, revisionNameOf, type PlanContext } from '../context.ts';
import { scaleDiffs } from '../update/step-diffs.ts';
import type { Diffs } from '../update/diff.ts';
import { ID_LENGTH, ID_SPACE, allocateInstanceIds, pvcNameFor, slowStartBatches } from './instance-ids.ts';
import { LifecycleState, PRE_DELETE_HOOK_KEY } from '../keys.ts';
import { isHooked, kruisePodReadyChange, statePatch } from '../lifecycle/lifecycle.ts';
import { buildPod } from './new-pod.ts';
import { POD_TYPE, ownerRefTo } from '../owner-ref.ts';
import { initialGateConditions, setPodConditions } from '../pods/pod-conditions.ts';
import { MAX_POD_WRITES_PER_PASS, PASS_LIMIT_REQUEUE_MS, passBudget, type PassBudget } from '../pass-limits.ts';
import { emptyPlan, minRequeue, type CreatePodAction, type DeleteReason, type Plan, type PlanAction } from '../plan.ts';
import { inOperationFirst, isGranted, throughLifecycle, type Gated } from '../lifecycle/ops-lifecycle.ts';
import { instanceIdOf, isControlled, isPreparingDelete, isReady, isSpecifiedDelete, podName } from '../pods/pod-state.ts';
import { templateOfRevision } from '../revisions/revisions.ts';
import { selfReleaseRefusal } from './selector-guard.ts';
import { sortForScaleIn } from './scale-in-order.ts';
import { runToEnd, type Stages } from '../stages.ts';
import type { Wait } from '../wait.ts';
import { waitEvent } from '../waits/wait-events.ts';

/** Requeue delay while a reusable id waits for its terminating pod (an id is reused only once no pod object holds its name). */
export const ID_WAIT_REQUEUE_MS = 1_000;

/**
 * "Delete" of the deletion paths: a controlled pod first goes through the `scale-in` lifecycle operation
 * (begin, then wait for operate); then a pod hooked by preDelete goes to PreparingDelete (and,
 * with markPodNotReady, gets the preDeleteHook not-ready key first); otherwise it is deleted
 * with every owned PVC of its instance id.
 */
export function deleteOrHold(ctx: PlanContext, pod: V1Pod, reason: DeleteReason): Gated {
  return throughLifecycle(pod, 'delete', kruiseDeleteOrHold(ctx, pod, reason));
}

function kruiseDeleteOrHold(ctx: PlanContext, pod: V1Pod, reason: DeleteReason): PlanAction[] {
  const hook = ctx.cs.spec.lifecycle?.preDelete;
  if (hook && isHooked(pod, hook) && !isPreparingDelete(pod)) {
    const out: PlanAction[] = [];
    if (hook.markPodNotReady) {
      const cond = kruisePodReadyChange(pod, { add: PRE_DELETE_HOOK_KEY });
      if (cond) out.push(setPodConditions(pod, [cond], ctx.nowMs));
    }
    out.push(statePatch(pod, LifecycleState.PreparingDelete, ctx.nowMs));
    return out;
  }
  return [{ kind: 'deletePod', name: podName(pod), reason, withPvcs: claimsOf(ctx, pod) }];
}

/**
 * The claims that go with a deleted pod: the cached claims of its instance id, and the claims its
 * own volumes name by this CloneSet's claim naming. The pod cache can be ahead of the PVC cache
 * (a pod created a moment ago whose claims the PVC watch has not delivered yet): without its
 * volumes, such a pod would be deleted without its claims, and they would stay behind for good.
 */
function claimsOf(ctx: PlanContext, pod: V1Pod): string[] {
  const id = instanceIdOf(pod);
  if (id === undefined) return [];
  const names = new Set(ctx.pvcs.filter((c) => instanceIdOf(c) === id).map((c) => c.metadata?.name ?? ''));
  const csName = ctx.cs.metadata.name ?? '';
  for (const v of pod.spec?.volumes ?? []) {
    const claim = v.persistentVolumeClaim?.claimName;
    if (claim !== undefined && claim === pvcNameFor(v.name, csName, id)) names.add(claim);
  }
  return [...names];
}

function cancelPreparingDelete(ctx: PlanContext, budget: PassBudget): PlanAction[] {
  const lc = ctx.cs.spec.lifecycle;
  if (lc?.preDelete?.markPodNotReady || lc?.inPlaceUpdate?.markPodNotReady) return [];
  const sd = (p: V1Pod) => isSpecifiedDelete(p, ctx.podsToDelete);
  let room = ctx.knobs.replicas - ctx.pods.length + ctx.pods.filter((p) => sd(p) || isPreparingDelete(p)).length;
  const out: PlanAction[] = [];
  for (const pod of ctx.pods) {
    if (room <= 0) break;
    if (!isPreparingDelete(pod) || sd(pod)) continue;
    if (!budget.take()) break;
    out.push(statePatch(pod, LifecycleState.PreparingNormal, ctx.nowMs));
    room--;
  }
  return out;
}

/** A wait of the step, announced by its Event. */
function say(plan: Plan, wait: Wait): void {
  plan.waits.push(wait);
  const event = waitEvent(wait);
  if (event) plan.actions.push(event);
}

function scaleOut(ctx: PlanContext, d: Diffs, plan: Plan): void {
  if (d.scaleUpNum > d.scaleUpLimit) {
    say(plan, { kind: 'scaleUpLimited', wanted: d.scaleUpNum, limit: d.scaleUpLimit, scaleMaxUnavailable: ctx.knobs.scaleMaxUnavailable, unavailable: d.tallies.totalUnavailable });
  }
  if (d.scaleUpLimit <= 0) return;
  const csName = ctx.cs.metadata.name ?? '';
  // The pass creates at most its limit (slow-start batches within it); the next pass the rest.
  const count = Math.min(d.scaleUpLimit, MAX_POD_WRITES_PER_PASS);
  if (count < d.scaleUpLimit) plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, PASS_LIMIT_REQUEUE_MS);
  const alloc = allocateInstanceIds({
    csName,
    count,
    pods: ctx.allPods,
    pvcs: ctx.pvcs,
    disableReuse: !!ctx.cs.spec.scaleStrategy?.disablePVCReuse,
    random: ctx.random,
    podNamed: ctx.podNamed,
  });
  if (alloc.waitingFor.length > 0) {
    plan.requeueAfterMs = ID_WAIT_REQUEUE_MS;
    // Users see why the CloneSet is short of pods: an Event and the FailedScale condition.
    say(plan, { kind: 'terminatingPods', pods: [...alloc.waitingFor] });
  }
  if (alloc.exhausted) {
    const short = count - alloc.ids.length - alloc.waitingFor.length;
    say(plan, { kind: 'instanceIdsExhausted', cloneSet: csName, short, asked: count, found: alloc.ids.length, idSpace: ID_SPACE, idLength: ID_LENGTH });
  }
  const existingPvcs = new Set(ctx.pvcs.map((c) => c.metadata?.name ?? ''));
  const batches = slowStartBatches(alloc.ids.length);
  const creates: CreatePodAction[] = [];
  let batch = 0;
  let inBatch = 0;
  alloc.ids.forEach((id, i) => {
    // The first scaleUpNumOld pods are at the current revision, the rest at update (OpenKruise's scale-out).
    const atCurrent = i < d.scaleUpNumOld;
    const rev = atCurrent ? ctx.currentRevision : ctx.updateRevision;
    const template = atCurrent ? templateOfRevision(rev) : ctx.cs.spec.template;
    const built = buildPod(ctx.cs, template, revisionNameOf(rev), id, ctx.gates, ctx.nowMs);
    creates.push({
      kind: 'createPod',
      name: built.pod.metadata?.name ?? '',
      instanceId: id,
      revision: revisionNameOf(rev),
      pod: built.pod,
      pvcs: built.pvcs.filter((c) => !existingPvcs.has(c.metadata?.name ?? '')),
      batch,
      initialConditions: initialGateConditions(ctx.nowMs),
    });
    if (++inBatch >= (batches[batch] ?? 0)) {
      batch++;
      inBatch = 0;
    }
  });
  const refusal = selfReleaseRefusal(
    ctx.cs,
    creates.map((c) => c.pod),
  );
  if (refusal) {
    say(plan, { kind: 'selectorExcludesPods', pods: [refusal.pod], cause: refusal.message });
    return;
  }
  plan.actions.push(...creates);
  plan.modified = alloc.ids.length > 0;
}

/** Pods to scale in (OpenKruise's scale-in order): old first per scaleDownNumOld, sorted, then the ready budget. */
export function chooseScaleIn(ctx: PlanContext, d: Diffs): V1Pod[] {
  // Pods already in the CloneSet's scale-in operation go first, so a choice is kept (as Kuperator's CollaSet does).
  const order = (ps: V1Pod[], n: number) =>
    ps.length <= n
      ? ps
      : inOperationFirst(
          sortForScaleIn(ps, {
            minReadySeconds: ctx.minReadySeconds,
            nowMs: ctx.nowMs,
            template: ctx.cs.spec.template,
            nodeLabels: ctx.nodeLabels,
          }),
          POL_OPERATION_TYPES.scaleIn,
        ).slice(0, n);
  const olds = ctx.pods.filter((p) => !isNewForScale(ctx, p));
  const news = ctx.pods.filter((p) => isNewForScale(ctx, p));
  const total = d.scaleDownNum;
  let chosen: V1Pod[];
  if (d.scaleDownNumOld >= total) chosen = order(olds, total);
  else if (d.scaleDownNumOld > 0) {
    const fromOld = order(olds, d.scaleDownNumOld);
    chosen = [...fromOld, ...order(news, total - fromOld.length)];
  } else chosen = order(news, total);
  let limit = d.deleteReadyLimit;
  // Not-ready pods need no budget; ready ones stop when it runs out, no fallback (OpenKruise's scale-in order).
  return chosen.filter((p) => {
    if (!isReady(p, ctx.nowMs)) return true;
    if (limit <= 0) return false;
    limit--;
    return true;
  });
}

export function planScale(ctx: PlanContext): Plan & { diffs: Diffs } {
  return runToEnd(planScaleStages(ctx));
}

/** planScale in stages (../stages.ts): the diffs | what they ask for; each reads every pod. */
export function* planScaleStages(ctx: PlanContext): Stages<Plan & { diffs: Diffs }> {
  const d = scaleDiffs(ctx);
  yield;
  const plan: Plan & { diffs: Diffs } = { ...emptyPlan(), diffs: d };
  const budget = passBudget();
  const done = (): Plan & { diffs: Diffs } => {
    if (budget.leftOver) plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, PASS_LIMIT_REQUEUE_MS);
    return plan;
  };
  /** Plans the pod's delete (or hold) when the pass has room for it; it stays chosen either way. */
  const act = (pod: V1Pod, reason: DeleteReason): void => {
    if (!budget.take()) return;
    const gated = deleteOrHold(ctx, pod, reason);
    plan.actions.push(...gated.actions);
    plan.waits.push(...gated.waits);
  };

  // 1. Cancel PreparingDelete when the count allows it.
  const cancelled = cancelPreparingDelete(ctx, budget);
  if (cancelled.length > 0) {
    plan.actions.push(...cancelled);
    plan.modified = true;
    return done();
  }

  // 2. Scale-out wins over every deletion in the same pass.
  if (d.scaleUpNum > 0) {
    scaleOut(ctx, d, plan);
    return plan;
  }

  // 3. Finish pre-deletes whose hook was released, and controlled pods whose scale-in was
  // granted (deleted even when the count no longer asks for it, as Kuperator does).
  const hook = ctx.cs.spec.lifecycle?.preDelete;
  const chosen = new Set<string>();
  for (const pod of ctx.pods) {
    if (isPreparingDelete(pod) && !isHooked(pod, hook)) act(pod, 'PreDeleteHookReleased');
    else if (!isPreparingDelete(pod) && isGrantedScaleIn(pod)) {
      chosen.add(podName(pod));
      act(pod, isSpecifiedDelete(pod, ctx.podsToDelete) ? 'SpecifiedDelete' : 'ScaleIn');
    }
  }
  plan.chosen = chosen;
  if (plan.actions.length > 0) {
    plan.modified = true;
    return done();
  }

  // 4. Specified deletes under deleteReadyLimit.
  const specified = ctx.pods.filter((p) => !isPreparingDelete(p) && isSpecifiedDelete(p, ctx.podsToDelete));
  let limit = d.deleteReadyLimit;
  for (const pod of specified) {
    if (isReady(pod, ctx.nowMs)) {
      if (limit <= 0) continue;
      limit--;
    }
    chosen.add(podName(pod));
    act(pod, 'SpecifiedDelete');
  }
  if (plan.actions.length > 0) {
    plan.modified = true;
    return done();
  }

  // 5. Scale-in, never while a specified or pre-deleting pod exists.
  const beingDeleted = [...specified, ...ctx.pods.filter(isPreparingDelete)];
  if (d.scaleDownNum > 0 && beingDeleted.length === 0) {
    for (const pod of chooseScaleIn(ctx, d)) {
      chosen.add(podName(pod));
      act(pod, 'ScaleIn');
    }
    plan.modified = plan.actions.length > 0;
  } else if (d.scaleDownNum > 0) {
    plan.waits.push({ kind: 'scaleInBlocked', count: d.scaleDownNum, pods: [...new Set(beingDeleted.map(podName))].sort() });
  }
  return done();
}

/** A controlled pod whose scale-in the CloneSet began and the lifecycle granted (its labels unchanged since). */
function isGrantedScaleIn(pod: V1Pod): boolean {
  return isControlled(pod) && isGranted(pod, POL_OPERATION_TYPES.scaleIn);
}

/** End of a pass: keep only names of claimed active pods in podsToDelete. */
export function planPodsToDeleteCleanup(ctx: PlanContext): PlanAction[] {
  const listed = ctx.cs.spec.scaleStrategy?.podsToDelete ?? [];
  const names = new Set(ctx.pods.map(podName));
  const kept = listed.filter((n) => names.has(n));
  return kept.length === listed.length ? [] : [{ kind: 'updatePodsToDelete', podsToDelete: kept }];
}

/**
 * disablePVCReuse clean-up (OpenKruise's PVC handling): every PVC whose id matches no active
 * pod goes to the inactive pod with that id, or is deleted. Returns the PVCs that remain.
 */
export function planPvcCleanup(ctx: Pick<PlanContext, 'cs' | 'allPods' | 'pvcs'>): {
  actions: PlanAction[];
  remaining: PlanContext['pvcs'];
} {
  if (!ctx.cs.spec.scaleStrategy?.disablePVCReuse) return { actions: [], remaining: ctx.pvcs };
  const activeIds = new Set(
    ctx.allPods.filter((p) => !p.metadata?.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase ?? '')).map(instanceIdOf),
  );
  const actions: PlanAction[] = [];
  const budget = passBudget();
  const remaining = ctx.pvcs.filter((c) => {
    const id = instanceIdOf(c);
    if (id === undefined || activeIds.has(id)) return true;
    // Out of room this pass: not reused either way, handled by a later pass.
    if (!budget.take()) return false;
    const holder = ctx.allPods.find((p) => instanceIdOf(p) === id);
    const name = c.metadata?.name ?? '';
    if (holder) {
      const owners = c.metadata?.ownerReferences ?? [];
      const alreadyOwned = owners.some((r) => r.uid === holder.metadata?.uid);
      const index = owners.findIndex((r) => r.uid === ctx.cs.metadata.uid);
      if (!alreadyOwned && index >= 0) {
        actions.push({ kind: 'reownPvc', name, ownerReference: ownerRefTo(holder, POD_TYPE), replaces: { index, ownerReference: owners[index]! } });
      }
    } else actions.push({ kind: 'deletePvc', name, reason: 'PVCReuseDisabled' });
    return false;
  });
  return { actions, remaining };
}

