// Executes a reconcile plan in plan order, each action by its family (actions/: pods, pod creates,
// claims, revisions, pre-download, the CloneSet itself), which owns its writes and its Events.
// Here: the order. Creates run in slow-start batches at the first create (§6.4); a run of per-pod
// actions runs pod by pod in parallel, each pod's actions in plan order and stopping at its first
// failure; whatever failed is sorted into failures (its step's condition) and lost races (replan).
import { abortedByStop, writeOutcome } from '@cloneset-suite/kube-runtime';
import type { CreatePodAction, PlanAction, PlannedAction } from '../core/plan.ts';
import { CLAIM_ACTION_KINDS, runClaimAction, type ClaimAction } from './actions/claims.ts';
import { CLONESET_ACTION_KINDS, runCloneSetAction, type CloneSetAction } from './actions/cloneset-writes.ts';
import { errorMessage, type ExecutionContext, type PlanState } from './actions/context.ts';
import type { ExecutionResult } from './actions/outcome.ts';
import { createInBatches, type PlannedCreate } from './actions/pod-creates.ts';
import { POD_ACTION_KINDS, runPodAction, type PodAction } from './actions/pods.ts';
import { PREDOWNLOAD_ACTION_KINDS, runPreDownloadAction } from './actions/predownload.ts';
import { REVISION_ACTION_KINDS, runRevisionAction } from './actions/revisions.ts';
import type { PreDownloadAction } from '../core/predownload/image-predownload.ts';
import type { RevisionAction } from '../core/revisions/revisions.ts';

export type { ExecutionContext } from './actions/context.ts';
export type { ExecutionResult } from './actions/outcome.ts';

type PlannedOther = Exclude<PlanAction, CreatePodAction> & Pick<PlannedAction, 'step'>;

/** The pod an action writes, for the actions of the pods family (one existing pod each). */
function podOf(action: PlanAction): string | undefined {
  return POD_ACTION_KINDS.has(action.kind) ? (action as PodAction).name : undefined;
}

/** One action by its family. */
function runAction(action: PlannedOther, ctx: ExecutionContext, state: PlanState): Promise<void> {
  if (POD_ACTION_KINDS.has(action.kind)) return runPodAction(action as PodAction, ctx, state);
  if (CLAIM_ACTION_KINDS.has(action.kind)) return runClaimAction(action as ClaimAction, ctx);
  if (REVISION_ACTION_KINDS.has(action.kind)) return runRevisionAction(action as RevisionAction, ctx);
  if (PREDOWNLOAD_ACTION_KINDS.has(action.kind)) return runPreDownloadAction(action as PreDownloadAction, ctx);
  if (CLONESET_ACTION_KINDS.has(action.kind)) return runCloneSetAction(action as CloneSetAction, ctx);
  throw new Error(`no executor for action ${action.kind}`);
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
