// Pod creates (OpenKruise's scale-out; OpenKruise's scale expectations): slow-start batches, each pod's claims first, its expectation set
// before the call, SuccessfulCreate / FailedCreate / CreatePodOutcomeUnknown, and the readiness-gate
// conditions written right after (both gates True, so a new pod becomes Ready without waiting for a refresh).
import { isAlreadyExists, strategicMergePatch, writeOutcome, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { CreatePodAction, PlannedAction } from '../../core/plan.ts';
import { podResource } from '../resources.ts';
import { createClaims } from './claims.ts';
import { asCreated, errorMessage, inNamespace, type ExecutionContext } from './context.ts';
import type { ExecutionResult } from './outcome.ts';
import { reportUnknownOutcome } from './unknown-outcome.ts';

export type PlannedCreate = CreatePodAction & Pick<PlannedAction, 'step'>;

/** Batch k holds up to 2^k pods; a batch with a failure stops the rest, whose expectations are never set. */
export async function createInBatches(creates: readonly PlannedCreate[], ctx: ExecutionContext, result: ExecutionResult): Promise<void> {
  const batches = Map.groupBy(creates, (c) => c.batch);
  // Each created pod's readiness-gate write runs beside the next batches: slow start waits on
  // the creates only, so the batches are not twice as long.
  const gateWrites: Promise<void>[] = [];
  try {
    for (const batch of [...batches.keys()].sort((a, b) => a - b)) {
      const outcomes = await Promise.all((batches.get(batch) ?? []).map((c) => createPod(c, ctx, result, gateWrites)));
      if (outcomes.some((ok) => !ok)) return;
    }
  } finally {
    await Promise.all(gateWrites);
  }
}

async function createPod(action: PlannedCreate, ctx: ExecutionContext, result: ExecutionResult, gateWrites: Promise<void>[]): Promise<boolean> {
  try {
    await createClaims(action, ctx);
  } catch (err) {
    result.failures.push({ step: action.step, message: `create pvc for pod ${action.name}: ${errorMessage(err)}`, error: err });
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pvc for pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
  ctx.expectations.expect(ctx.key, 'create', action.name);
  try {
    const created = await ctx.client.resource<KubeObject>(podResource).create(asCreated(ctx, action.pod), inNamespace(ctx));
    ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod ${action.name}`, created);
    gateWrites.push(writeInitialConditions(action, ctx));
    return true;
  } catch (err) {
    if (writeOutcome(err, ctx.signal) === 'unknown') {
      // The POST may have landed: the expectation stays, so the next pass waits for the cache
      // (or the expectation window) instead of creating a second pod under a new id.
      reportUnknownOutcome(ctx, err, { reason: 'CreatePodOutcomeUnknown', action: 'Create', subject: `pod ${action.name}` });
      return false;
    }
    // AlreadyExists: the planner saw no pod of that name (an id is reused only when no pod holds its name), so the cache is
    // behind (the pod may be one of ours whose create landed unanswered). The expectation stays
    // until the cache shows the pod, so no pass plans from the cache that missed it; the failure
    // is retried with backoff.
    if (!isAlreadyExists(err)) ctx.expectations.observe(ctx.key, 'create', action.name);
    result.failures.push({ step: action.step, message: `create pod ${action.name}: ${errorMessage(err)}`, error: err });
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
}

/** The planned /status write that follows a create (both readiness gates True). */
async function writeInitialConditions(action: CreatePodAction, ctx: ExecutionContext): Promise<void> {
  try {
    const pod = await ctx.client
      .resource<KubeObject>(podResource)
      .patchStatus(ctx.cs.metadata.namespace, action.name, strategicMergePatch({ status: { conditions: action.initialConditions } }), { signal: ctx.signal });
    ctx.podWritten?.(action.name, pod.metadata?.resourceVersion);
  } catch (err) {
    // The next pass sees the missing conditions and sets them through the refresh planner.
    ctx.logger.warn({ err, pod: action.name }, 'setting readiness-gate conditions failed');
  }
}
