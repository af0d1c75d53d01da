// The claims family (OpenKruise's PVC handling): PVCs created ahead of their pod, deleted with it or on their own, and
// re-owned under disablePVCReuse; each write's Warning Event on failure.
import { isAlreadyExists, isNotFound, jsonPatch, writeOutcome, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { CreatePodAction, DeletePvcAction, ReownPvcAction } from '../../core/plan.ts';
import { pvcResource } from '../resources.ts';
import { claimExpectation } from './claim-expectation.ts';
import { asCreated, errorMessage, inNamespace, type ExecutionContext } from './context.ts';
import { reportUnknownOutcome } from './unknown-outcome.ts';

export type ClaimAction = DeletePvcAction | ReownPvcAction;

export async function runClaimAction(action: ClaimAction, ctx: ExecutionContext): Promise<void> {
  const pvcs = ctx.client.resource<KubeObject>(pvcResource);
  const ns = ctx.cs.metadata.namespace;
  if (action.kind === 'deletePvc') {
    await deleteClaim(ctx, action.name, `failed to clean up PVC ${action.name}`);
    return;
  }
  // Only the entry that changes, tested first: other owners stay, and a PVC whose owners moved
  // since the plan read them fails the test (a conflict) instead of being overwritten.
  const path = `/metadata/ownerReferences/${action.replaces.index}`;
  await withWarning(ctx, 'FailedUpdate', 'Update', `failed to update PVC ${action.name} owner to pod ${action.ownerReference.name}`, () =>
    pvcs.patch(ns, action.name, jsonPatch([{ op: 'test', path, value: action.replaces.ownerReference }, { op: 'replace', path, value: action.ownerReference }]), { signal: ctx.signal }),
  );
}

/** The claims of a new pod, when no PVC of that name exists yet (an existing one is reused). */
export async function createClaims(action: CreatePodAction, ctx: ExecutionContext): Promise<void> {
  const pvcs = ctx.client.resource<KubeObject>(pvcResource);
  for (const pvc of action.pvcs) {
    try {
      await pvcs.create(asCreated(ctx, pvc), inNamespace(ctx));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}

/**
 * A PVC delete, expected until the PVC cache shows it terminating or gone: a pass planned from a
 * cache that still lists the claim as live would reuse its instance id and, the claim existing,
 * create the replacement pod without one; the claim then goes and the pod never schedules. A
 * delete whose outcome is unknown may have landed, so its expectation stays too.
 */
export async function deleteClaim(ctx: ExecutionContext, name: string, message: string): Promise<void> {
  const expected = claimExpectation(name);
  ctx.expectations.expect(ctx.key, 'delete', expected);
  try {
    await ctx.client.resource<KubeObject>(pvcResource).delete(ctx.cs.metadata.namespace, name, { signal: ctx.signal });
  } catch (err) {
    if (isNotFound(err)) {
      ctx.expectations.observe(ctx.key, 'delete', expected); // gone before we asked
      return;
    }
    if (writeOutcome(err, ctx.signal) === 'unknown') {
      reportUnknownOutcome(ctx, err, { reason: 'DeletePVCOutcomeUnknown', action: 'Delete', subject: `pvc ${name}` });
      return;
    }
    // Not deleted: no event of this delete is coming.
    ctx.expectations.observe(ctx.key, 'delete', expected);
    warnUnlessLostRace(ctx, 'FailedDelete', 'Delete', message, err);
    throw err;
  }
}

/** Runs a write; on failure records a Warning Event (`message: error`, as OpenKruise's CloneSet Events) and rethrows. */
async function withWarning(ctx: ExecutionContext, reason: string, action: string, message: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    warnUnlessLostRace(ctx, reason, action, message, err);
    throw err;
  }
}

/** A lost race is replanned, not reported. */
function warnUnlessLostRace(ctx: ExecutionContext, reason: string, action: string, message: string, err: unknown): void {
  if (writeOutcome(err) !== 'conflict') ctx.recorder.event(ctx.cs, 'Warning', reason, action, `${message}: ${errorMessage(err)}`);
}
