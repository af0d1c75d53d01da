// One reconcile pass as data (spec §3): claim, revisions, Scale-or-Update, clean-ups.
// The shell executes `actions` in order, then calls computeStatus with the outcome.
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { buildContext, revisionName, type PlanContext } from './context.ts';
import { planImagePreDownload } from './image-predownload.ts';
import type { FeatureGates } from './keys.ts';
import { minRequeue, type PlanAction, type PlanError } from './plan.ts';
import { classifyPods, podName } from './pod-state.ts';
import { computeRevisions, planHistoryTruncation, type RevisionsResult } from './revisions.ts';
import { planPodsToDeleteCleanup, planPvcCleanup, planScale } from './scale-plan.ts';
import type { NodeLabels } from './scale-in-order.ts';
import type { CloneSetLike } from './types.ts';
import { planUpdate } from './update-plan.ts';
import type { StatusInput } from './status.ts';

export interface ReconcileInput {
  cs: CloneSetLike;
  /** Pods listed by ownerRef UID (active and inactive). */
  pods: readonly V1Pod[];
  /** Owned PVCs not being deleted. */
  pvcs: readonly V1PersistentVolumeClaim[];
  /** ControllerRevisions matching the selector. */
  revisions: readonly V1ControllerRevision[];
  /** Whether any ControllerRevision of this name exists in the namespace (collisions, §7). */
  revisionNameTaken?: (name: string) => boolean;
  /** False while a create/delete issued earlier is unobserved (§3 step 3, §6.8). */
  expectationsSatisfied: boolean;
  gates: FeatureGates;
  nowMs: number;
  random: () => number;
  nodeLabels?: NodeLabels;
  /** Whether the apiserver serves ImagePullJobs (image pre-download, §8.9); false when unknown. */
  imagePullJobCrdPresent?: boolean;
}

export interface ReconcilePlan {
  /** True when expectations blocked the pass: nothing to do but requeue. */
  waitingForExpectations: boolean;
  actions: PlanAction[];
  /** Which sync step ran: Scale wrote (Update skipped), or Update ran. */
  stepsRun: { scale: boolean; update: boolean };
  errors: PlanError[];
  requeueAfterSeconds?: number;
  revisions?: RevisionsResult;
  context?: PlanContext;
}

export function planReconcile(input: ReconcileInput): ReconcilePlan {
  const empty: ReconcilePlan = { waitingForExpectations: false, actions: [], stepsRun: { scale: false, update: false }, errors: [] };
  if (!input.expectationsSatisfied) return { ...empty, waitingForExpectations: true };
  const { cs } = input;
  const deleting = !!cs.metadata.deletionTimestamp;
  const actions: PlanAction[] = [];

  const claim = classifyPods(cs, input.pods);
  const allPods = [...claim.claimed, ...claim.inactive];
  const pvcClean = planPvcCleanup({ cs, allPods, pvcs: input.pvcs });
  actions.push(...pvcClean.actions);
  for (const p of claim.toRelease) actions.push({ kind: 'releasePod', name: podName(p) });
  for (const p of claim.toAdopt) actions.push({ kind: 'adoptPod', name: podName(p) });

  const revisions = computeRevisions({ cs, revisions: input.revisions, ...(input.revisionNameTaken ? { nameTaken: input.revisionNameTaken } : {}) });
  actions.push(...revisions.actions);
  const allRevisions = revisions.actions.some((a) => a.kind === 'createRevision')
    ? [...input.revisions, revisions.updateRevision]
    : input.revisions.map((r) => (r.metadata?.name === revisionName(revisions.updateRevision) ? revisions.updateRevision : r));

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
    ...(input.nodeLabels ? { nodeLabels: input.nodeLabels } : {}),
  });

  const result: ReconcilePlan = { ...empty, actions, revisions, context: ctx };
  // §3 step 10. A revision created in this very pass is handled by the next one, once it exists.
  if (!revisions.actions.some((a) => a.kind === 'createRevision')) {
    actions.push(...planImagePreDownload(ctx, { crdPresent: !!input.imagePullJobCrdPresent }));
  }
  if (!deleting) {
    const scale = planScale(ctx);
    actions.push(...scale.actions);
    result.errors.push(...scale.errors);
    result.stepsRun.scale = true;
    result.requeueAfterSeconds = minRequeue(result.requeueAfterSeconds, scale.requeueAfterSeconds);
    if (!scale.modified) {
      const update = planUpdate(ctx);
      actions.push(...update.actions);
      result.errors.push(...update.errors);
      result.stepsRun.update = true;
      result.requeueAfterSeconds = minRequeue(result.requeueAfterSeconds, update.requeueAfterSeconds);
    }
    actions.push(...planPodsToDeleteCleanup(ctx));
  }
  actions.push(
    ...planHistoryTruncation(
      allRevisions,
      {
        currentRevision: revisionName(revisions.currentRevision),
        updateRevision: revisionName(revisions.updateRevision),
        claimedPods: claim.claimed,
      },
      cs.spec.revisionHistoryLimit,
    ),
  );
  return result;
}

/**
 * The computeStatus input for a pass (§3 step 12), given how each step went:
 * a message when it failed, null when it ran cleanly, undefined when it did not run.
 * Planner errors (e.g. InPlaceOnly) are merged in as failures of their step.
 */
export function statusInputFor(
  plan: ReconcilePlan,
  failures: StatusInput['failures'],
  nowMs: number,
): StatusInput | undefined {
  const ctx = plan.context;
  if (!ctx || !plan.revisions) return undefined;
  const merged: StatusInput['failures'] = {
    ...(plan.stepsRun.scale ? { FailedScale: null } : {}),
    ...(plan.stepsRun.update ? { FailedUpdate: null } : {}),
  };
  for (const e of plan.errors) merged[e.condition] = e.message;
  for (const [k, v] of Object.entries(failures) as [keyof StatusInput['failures'], string | null | undefined][]) {
    if (v !== undefined) merged[k] = v;
  }
  return {
    cs: ctx.cs,
    pods: ctx.pods,
    updateRevision: revisionName(plan.revisions.updateRevision),
    currentRevision: revisionName(plan.revisions.currentRevision),
    collisionCount: plan.revisions.collisionCount,
    partition: ctx.knobs.partitionValid ? ctx.knobs.partition : undefined,
    failures: merged,
    nowMs,
  };
}
