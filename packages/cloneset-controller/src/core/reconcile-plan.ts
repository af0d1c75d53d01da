// One reconcile pass as data (OpenKruise's CloneSet sync): claim, revisions, Scale-or-Update, clean-ups.
// The shell executes `actions` in order, then calls computeStatus through statusInputFor.
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { buildContext, isUpdatedPod, revisionNameOf, type NodeAllocatable, type NodeLabels, type PlanContext } from './context.ts';
import { PODS_HELD_CONDITION, holdEvents } from './status/held-condition.ts';
import { hookWaits } from './lifecycle/hook-waits.ts';
import { planImagePreDownload } from './predownload/image-predownload.ts';
import type { FeatureGates } from './keys.ts';
import type { Diffs } from './update/diff.ts';
import { failureCondition, inStep, minRequeue, type PlannedAction, type PlanError, type PlanStep } from './plan.ts';
import { alteredOperationWaits, planAlteredOperations, planUndos, type CloneSetOperationType, type WantedPods } from './lifecycle/ops-lifecycle.ts';
import { classifyPods, podName } from './pods/pod-state.ts';
import { computeRevisions, planHistoryTruncation, type RevisionsResult } from './revisions/revisions.ts';
import { transitionRuleWaits } from './lifecycle/rule-waits.ts';
import { planPodsToDeleteCleanup, planPvcCleanup, planScaleStages } from './scale/scale-plan.ts';
import { deletesAfterRecreateMarks } from './scale/recreate-deletes.ts';
import type { CloneSetLike } from './types.ts';
import { planUpdateStages, type UpdateDiffs } from './update/update-plan.ts';
import { runToEnd, type Stages } from './stages.ts';
import type { StatusInput } from './status/status.ts';
import { availabilityWaits } from './pods/availability-waits.ts';
import { conditionOf, isHold, podsOf, type Wait } from './wait.ts';
import { waitMessage } from './waits/wait-text.ts';

export interface ReconcileInput {
  cs: CloneSetLike;
  /** Pods listed by ownerRef UID (active and inactive). */
  pods: readonly V1Pod[];
  /** Owned PVCs not being deleted. */
  pvcs: readonly V1PersistentVolumeClaim[];
  /** ControllerRevisions matching the selector. */
  revisions: readonly V1ControllerRevision[];
  /** Whether any ControllerRevision of this name exists in the namespace (collisions). */
  revisionNameTaken?: (name: string) => boolean;
  gates: FeatureGates;
  nowMs: number;
  random: () => number;
  nodeLabels?: NodeLabels;
  /** A node's allocatable cpu and memory, when known (an in-place resize must fit it). */
  nodeAllocatable?: NodeAllocatable;
  /** How long a Deferred in-place resize may wait before its pod is re-created. */
  resizeDeferredTimeoutMs?: number;
  /** Any pod of the namespace by name, ours or not (instance id reuse). */
  podNamed?: (name: string) => V1Pod | undefined;
  /** Whether the apiserver serves ImagePullJobs (image pre-download); false when unknown. */
  imagePullJobCrdPresent?: boolean;
}

/**
 * Which sync step ran and the diff numbers it decided from (OpenKruise's calculateDiffsWithExpectation). Scale runs first;
 * when it writes, Update waits for the next pass. A step's diffs are here exactly when it ran.
 */
export type SyncStep =
  /** The CloneSet is being deleted: neither step runs. */
  | { step: 'none'; reason: 'deleting' }
  /** Scale wrote, so Update was skipped. */
  | { step: 'scale'; scaleDiffs: Diffs }
  /** Scale had nothing to write, so Update ran. */
  | { step: 'update'; scaleDiffs: Diffs; update: UpdateDiffs };

/**
 * One pass's decisions. The shell calls planReconcile only once the expectations are met
 *, so a plan always has its revisions and context.
 */
export interface ReconcilePlan {
  actions: PlannedAction[];
  sync: SyncStep;
  errors: PlanError[];
  /**
   * What the pass waits for, each made where the step decided to wait (./wait.ts): said on
   * the condition of its kind (pods someone else holds on PodsHeld, not as a failure), by Events,
   * the debug line and kubectl-cloneset.
   */
  waits: Wait[];
  requeueAfterMs?: number;
  revisions: RevisionsResult;
  context: PlanContext;
}

/** The whole pass at once: the stages below run back to back. */
export function planReconcile(input: ReconcileInput): ReconcilePlan {
  return runToEnd(planReconcileStages(input));
}

/**
 * The pass in stages (./stages.ts), with a `yield` between two: claim and revisions; Scale (its
 * diffs, then what they ask for); Update (refresh 1,000 pods read a stage, its diffs, its order,
 * the choice and its writes; the ReCreate deletes, a Scale step of their own); holds, undos and
 * clean-ups. Each stage reads every pod, tens of milliseconds at 10,000 pods and more on a busy
 * machine, so the shell gives the event loop a turn at the first yield after 10 ms (a Lease
 * renewal, watch events, a webhook request go first; README "Planning cost"). The stages read the
 * input's pods, listed before the first; its lookups (`podNamed`, `nodeLabels`,
 * `nodeAllocatable`) answer when a stage calls them, so in the shell they may see the cache a turn
 * later than the listed pods: a name or a node label one event newer, as a pass begun a moment
 * later would have read it.
 */
export function* planReconcileStages(input: ReconcileInput): Stages<ReconcilePlan> {
  const { cs } = input;
  const deleting = !!cs.metadata.deletionTimestamp;
  const actions: PlannedAction[] = [];

  const claim = classifyPods(cs, input.pods);
  const allPods = [...claim.claimed, ...claim.inactive];
  const pvcClean = planPvcCleanup({ cs, allPods, pvcs: input.pvcs });
  actions.push(...inStep('cleanup', pvcClean.actions));
  for (const p of claim.toRelease) actions.push({ kind: 'releasePod', name: podName(p), step: 'claim' });
  for (const p of claim.toAdopt) actions.push({ kind: 'adoptPod', name: podName(p), step: 'claim' });

  const revisions = computeRevisions({ cs, revisions: input.revisions, nameTaken: input.revisionNameTaken });
  actions.push(...inStep('revisions', revisions.actions));
  const allRevisions = revisions.actions.some((a) => a.kind === 'createRevision')
    ? [...input.revisions, revisions.updateRevision]
    : input.revisions.map((r) => (r.metadata?.name === revisionNameOf(revisions.updateRevision) ? revisions.updateRevision : r));

  const ctx = buildContext({
    cs: { ...cs, status: { ...(cs.status ?? {}), collisionCount: revisions.collisionCount } },
    gates: input.gates,
    nowMs: input.nowMs,
    random: input.random,
    pods: claim.claimed,
    allPods,
    pvcs: pvcClean.remaining,
    revisions: allRevisions,
    currentRevision: revisions.currentRevision,
    updateRevision: revisions.updateRevision,
    nodeLabels: input.nodeLabels,
    nodeAllocatable: input.nodeAllocatable,
    resizeDeferredTimeoutMs: input.resizeDeferredTimeoutMs,
    podNamed: input.podNamed,
  });

  yield;
  const result: Omit<ReconcilePlan, 'sync'> = { actions, errors: [], waits: [], revisions, context: ctx };
  // Image pre-download, after Scale and Update. A revision created in this very pass is handled by the next one, once it exists.
  if (!revisions.actions.some((a) => a.kind === 'createRevision')) {
    actions.push(...inStep('preDownload', planImagePreDownload(ctx, { crdPresent: !!input.imagePullJobCrdPresent })));
  }
  if (deleting) result.waits.push({ kind: 'deleting' });
  const sync: SyncStep = deleting ? { step: 'none', reason: 'deleting' } : yield* planSync(ctx, result);
  const history = planHistoryTruncation(
    allRevisions,
    {
      currentRevision: revisionNameOf(revisions.currentRevision),
      updateRevision: revisionNameOf(revisions.updateRevision),
      claimedPods: claim.claimed,
    },
    cs.spec.revisionHistoryLimit,
  );
  actions.push(...inStep('revisions', history));
  return { ...result, sync };
}

/**
 * Scale, then Update unless Scale wrote, then the deletes the next pass's Scale
 * step would make of the pods Update marked for a recreate, then the pods whose lifecycle labels
 * no longer say what the CloneSet began, undos and clean-ups, into `plan`.
 */
function* planSync(ctx: PlanContext, plan: Omit<ReconcilePlan, 'sync'>): Stages<SyncStep> {
  const { actions } = plan;
  const scale = yield* planScaleStages(ctx);
  yield;
  actions.push(...inStep('scale', scale.actions));
  plan.errors.push(...scale.errors);
  plan.waits.push(...scale.waits);
  plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, scale.requeueAfterMs);
  let sync: SyncStep = { step: 'scale', scaleDiffs: scale.diffs };
  if (scale.modified) {
    // The Update step waits for the next pass: the pods behind the update revision say so.
    const behind = ctx.pods.filter((p) => !isUpdatedPod(ctx, p)).map(podName).sort();
    if (behind.length > 0) plan.waits.push({ kind: 'scaleFirst', pods: behind });
  }
  const wanted: Record<CloneSetOperationType, WantedPods> = { 'scale-in': scale.chosen, update: undefined };
  if (!scale.modified) {
    const update = yield* planUpdateStages(ctx);
    wanted.update = update.chosen;
    actions.push(...inStep('update', update.actions));
    actions.push(...inStep('scale', yield* deletesAfterRecreateMarks(ctx, update.actions)));
    plan.errors.push(...update.errors);
    plan.waits.push(...update.waits);
    plan.requeueAfterMs = minRequeue(plan.requeueAfterMs, update.requeueAfterMs);
    sync = { step: 'update', scaleDiffs: scale.diffs, update: 'diffs' in update ? { diffs: update.diffs } : { stoppedBy: update.stoppedBy } };
    yield;
  }
  // Held pods are said whichever step ran: the controller has nothing to do until they are released.
  const holds = [...hookWaits(ctx), ...transitionRuleWaits(ctx), ...alteredOperationWaits(ctx.pods)];
  plan.waits.push(...holds, ...availabilityWaits(ctx));
  actions.push(...inStep('scale', holdEvents(holds, ctx.cs.status?.conditions?.find((c) => c.type === PODS_HELD_CONDITION))));
  // An undo fails the condition of the step its operation type belongs to.
  const stepOf = (type: string): PlanStep => (type === 'update' ? 'update' : 'scale');
  for (const a of planAlteredOperations(ctx.pods)) actions.push({ ...a, step: a.kind === 'undoOperation' ? stepOf(a.type) : 'scale' });
  const undone = new Set(actions.flatMap((a) => (a.kind === 'undoOperation' ? [a.name] : [])));
  for (const undo of planUndos(ctx.pods, wanted)) {
    if (!undone.has(undo.name)) actions.push({ ...undo, step: stepOf(undo.type) });
  }
  actions.push(...inStep('cleanup', planPodsToDeleteCleanup(ctx)));
  return sync;
}

/** An executed action that failed, with the step that planned it. */
export interface ActionFailure {
  step: PlanStep;
  message: string;
}

/**
 * The computeStatus input for a pass: a condition is set to every failure
 * message of its steps joined (planner errors and waits first, then failed actions), cleared when its
 * step ran without one, and left alone otherwise. An invalid partition (one that bypassed
 * admission) counts as none: expectedUpdatedReplicas is 0.
 */
export function statusInputFor(plan: ReconcilePlan, failures: readonly ActionFailure[], nowMs: number): StatusInput {
  const ctx = plan.context;
  const messages = (condition: PlanError['condition']): string[] => [
    ...plan.errors.filter((e) => e.condition === condition).map((e) => e.message),
    ...plan.waits.filter((w) => conditionOf(w) === condition).map(waitMessage),
    ...failures.filter((f) => failureCondition(f.step) === condition).map((f) => f.message),
  ];
  const merged: StatusInput['failures'] = {};
  const ran = { FailedScale: plan.sync.step !== 'none', FailedUpdate: plan.sync.step === 'update' } as const;
  for (const condition of ['FailedScale', 'FailedUpdate'] as const) {
    const found = messages(condition);
    if (found.length > 0) merged[condition] = found.join('; ');
    else if (ran[condition]) merged[condition] = null;
  }
  return {
    cs: ctx.cs,
    pods: ctx.pods,
    updateRevision: revisionNameOf(plan.revisions.updateRevision),
    currentRevision: revisionNameOf(plan.revisions.currentRevision),
    collisionCount: plan.revisions.collisionCount,
    partition: ctx.knobs.partitionValid ? ctx.knobs.partition : undefined,
    failures: merged,
    // A deleting CloneSet plans no sync step, so its holds were not looked at.
    ...(plan.sync.step === 'none' ? {} : { held: plan.waits.filter(isHold) }),
    nowMs,
  };
}

/**
 * What a pass decided and from which numbers, for the debug log (as kruise logs "Calculate
 * diffs for CloneSet" on every pass): the diffs of each step and the actions per kind and
 * reason, so `--log-level=debug` says why a pod was (not) created, deleted or updated.
 */
export function describePlan(plan: ReconcilePlan): Record<string, unknown> {
  const actions: Record<string, number> = {};
  for (const a of plan.actions) {
    const label = 'reason' in a && a.kind !== 'event' ? `${a.kind}:${a.reason}` : a.kind === 'event' ? `event:${a.reason}` : a.kind;
    actions[label] = (actions[label] ?? 0) + 1;
  }
  return {
    replicas: plan.context.knobs.replicas,
    pods: plan.context.pods.length,
    currentRevision: revisionNameOf(plan.revisions.currentRevision),
    updateRevision: revisionNameOf(plan.revisions.updateRevision),
    ...syncFields(plan.sync),
    actions,
    ...(plan.errors.length ? { errors: plan.errors.map((e) => `${e.condition}: ${e.message}`) } : {}),
    ...(plan.waits.length ? { waits: plan.waits.map((w) => `${w.kind}${podsOf(w).length ? ` (${podsOf(w).length} pod(s))` : ''}: ${waitMessage(w)}`) } : {}),
    requeueAfterMs: plan.requeueAfterMs,
  };
}

/** The debug line's view of the sync step: which ran, and the diffs (or stop) of each that did. */
function syncFields(sync: SyncStep): Record<string, unknown> {
  switch (sync.step) {
    case 'none':
      return { sync: 'none', syncSkipped: sync.reason };
    case 'scale':
      return { sync: 'scale', scaleDiffs: sync.scaleDiffs };
    case 'update':
      return {
        sync: 'update',
        scaleDiffs: sync.scaleDiffs,
        ...('diffs' in sync.update ? { updateDiffs: sync.update.diffs } : { updateStoppedBy: sync.update.stoppedBy }),
      };
  }
}
