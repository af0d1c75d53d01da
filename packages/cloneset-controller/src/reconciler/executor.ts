// Executes a reconcile plan in plan order, each action by its family (actions/: pods, pod creates,
// claims, revisions, pre-download, the CloneSet itself), which owns its writes and its Events.
// Here: the order. Creates run in slow-start batches at the first create (OpenKruise's scale-out); a run of per-pod
// actions runs pod by pod in parallel, each pod's actions in plan order and stopping at its first
// failure; whatever failed is sorted into failures (its step's condition) and lost races (replan).
import { abortedByStop, writeOutcome } from '@cloneset-suite/kube-runtime';
import type { CreatePodAction, PlanAction, PlannedAction } from '../core/plan.ts';
import { runClaimAction, type ClaimAction } from './actions/claims.ts';
import { runCloneSetAction, type CloneSetAction } from './actions/cloneset-writes.ts';
import { errorMessage, type ExecutionContext, type PlanState } from './actions/context.ts';
import type { ExecutionResult } from './actions/outcome.ts';
import { createInBatches, type PlannedCreate } from './actions/pod-creates.ts';
import { runPodAction, type PodAction } from './actions/pods.ts';
import { runPreDownloadAction } from './actions/predownload.ts';
import { runRevisionAction } from './actions/revisions.ts';
import type { PreDownloadAction } from '../core/plan.ts';
import type { RevisionAction } from '../core/plan.ts';

export type { ExecutionContext } from './actions/context.ts';
export type { ExecutionResult } from './actions/outcome.ts';

type PlannedOther = Exclude<PlanAction, CreatePodAction> & Pick<PlannedAction, 'step'>;

/** The families of actions/, each running the actions of one union type. */
interface Families {
  pods: PodAction;
  claims: ClaimAction;
  revisions: RevisionAction;
  predownload: PreDownloadAction;
  cloneset: CloneSetAction;
}
type Family = keyof Families;

/**
 * Every action kind but createPod (slow-start batches, below), by the family that runs it. A
 * new kind left out, or put in a family whose union does not hold it, fails typecheck.
 */
const FAMILY_OF = {
  deletePod: 'pods',
  beginOperation: 'pods',
  finishOperation: 'pods',
  undoOperation: 'pods',
  patchPod: 'pods',
  setPodConditions: 'pods',
  inPlaceUpdate: 'pods',
  resizePod: 'pods',
  releasePod: 'pods',
  adoptPod: 'pods',
  podEvent: 'pods',
  deletePvc: 'claims',
  reownPvc: 'claims',
  createRevision: 'revisions',
  updateRevision: 'revisions',
  deleteRevision: 'revisions',
  createImagePullJob: 'predownload',
  labelRevision: 'predownload',
  deleteImagePullJobs: 'predownload',
  updatePodsToDelete: 'cloneset',
  event: 'cloneset',
} as const satisfies Record<PlannedOther['kind'], Family>;

/** The kinds the table gives `F` are exactly the kinds of `F`'s union (so the narrowing below holds). */
type KindsOf<F extends Family> = { [K in keyof typeof FAMILY_OF]: (typeof FAMILY_OF)[K] extends F ? K : never }[keyof typeof FAMILY_OF];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const familiesMatch: { [F in Family]: Same<KindsOf<F>, Families[F]['kind']> } = { pods: true, claims: true, revisions: true, predownload: true, cloneset: true };
void familiesMatch;

function inFamily<F extends Family>(action: PlanAction, family: F): action is Families[F] & PlanAction {
  return action.kind !== 'createPod' && FAMILY_OF[action.kind] === family;
}

/** The pod an action writes, for the actions of the pods family (one existing pod each). */
function podOf(action: PlanAction): string | undefined {
  return inFamily(action, 'pods') ? action.name : undefined;
}

/** One action by its family. */
function runAction(action: PlannedOther, ctx: ExecutionContext, state: PlanState): Promise<void> {
  const family = FAMILY_OF[action.kind];
  switch (family) {
    case 'pods':
      return runPodAction(action as PodAction, ctx, state);
    case 'claims':
      return runClaimAction(action as ClaimAction, ctx);
    case 'revisions':
      return runRevisionAction(action as RevisionAction, ctx);
    case 'predownload':
      return runPreDownloadAction(action as PreDownloadAction, ctx);
    case 'cloneset':
      return runCloneSetAction(action as CloneSetAction, ctx);
    default: {
      const unhandled: never = family;
      throw new Error(`no executor for action family ${String(unhandled)}`);
    }
  }
}

export async function executePlan(actions: readonly PlannedAction[], ctx: ExecutionContext): Promise<ExecutionResult> {
  const result: ExecutionResult = { failures: [], conflicts: [] };
  const state: PlanState = { written: new Map() };
  const creates = actions.filter((a): a is PlannedCreate & PlannedAction => a.kind === 'createPod');
  /** Runs one action; false when it failed or lost a race. */
  const runOne = async (action: PlannedOther): Promise<boolean> => {
    try {
      await runAction(action, ctx, state);
      return true;
    } catch (err) {
      if (abortedByStop(ctx.signal)) {
        // The manager is stopping: nothing failed, and the next leader replans from its cache
        // whether this write landed or not (no Warning, no failed condition).
        ctx.logger.info({ action: action.kind, step: action.step }, 'plan action cut short by shutdown; the next leader replans');
        return false;
      }
      const message = `${action.kind} ${'name' in action ? action.name : ''}: ${errorMessage(err)}`.trim();
      if (writeOutcome(err) === 'conflict') {
        ctx.logger.debug({ err, action: action.kind, step: action.step }, 'plan action lost a race; replanning');
        result.conflicts.push({ step: action.step, message, error: err });
        return false;
      }
      ctx.logger.warn({ err, action: action.kind, step: action.step }, 'plan action failed');
      result.failures.push({ step: action.step, message, error: err });
      return false;
    }
  };
  let createsDone = false;
  for (let i = 0; i < actions.length && !ctx.signal.aborted; ) {
    const action = actions[i]!;
    if (action.kind === 'createPod') {
      if (!createsDone) {
        createsDone = true;
        await createInBatches(creates, ctx, result);
      }
      i++;
      continue;
    }
    if (podOf(action) === undefined) {
      await runOne(action);
      i++;
      continue;
    }
    // A run of per-pod actions: each pod's actions stay in plan order, pods proceed in parallel.
    // A pod's later actions were planned on its earlier ones landing (the gate False before the
    // in-place update, the specified-delete mark before the delete): its first failure ends them.
    const perPod = new Map<string, PlannedOther[]>();
    for (; i < actions.length; i++) {
      const a = actions[i]!;
      const pod = podOf(a);
      if (pod === undefined) break;
      const queued = perPod.get(pod);
      if (queued) queued.push(a as PlannedOther);
      else perPod.set(pod, [a as PlannedOther]);
    }
    // Writes to different pods in one plan go out together, as the ReplicaSet controller sends a
    // whole burst of deletes at once, as many at a time as the client sends requests.
    await forEachLimited([...perPod.values()], ctx.client.maxConcurrentRequests, async (podActions) => {
      for (const a of podActions) {
        if (ctx.signal.aborted || !(await runOne(a))) return;
      }
    });
  }
  return result;
}

async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
