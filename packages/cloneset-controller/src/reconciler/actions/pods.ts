// The pods family: every write to one existing pod (delete, metadata patch, status conditions,
// in-place update, in-place resize, PodOpsLifecycle operation, release, adoption) and the Events that go with it.
// A pod's actions run in plan order; pods run side by side (executor.ts).
import { isNotFound, strategicMergePatch, writeOutcome, type KubeObject } from '@cloneset-suite/kube-runtime';
import { ownerRefTo } from '../../core/owner-ref.ts';
import type { AdoptPodAction, DeletePodAction, OperationAction, PatchPodAction, PodEventAction, ReleasePodAction, ResizePodAction, SetPodConditionsAction, InPlaceUpdateAction } from '../../core/plan.ts';
import { podResource } from '../resources.ts';
import { deleteClaim } from './claims.ts';
import { errorMessage, type ExecutionContext, type PlanState } from './context.ts';
import { inPlaceUpdate } from './in-place-update.ts';
import { reportUnknownOutcome } from './unknown-outcome.ts';
import { writeOperation } from './operation-writes.ts';

export type PodAction = DeletePodAction | OperationAction | PatchPodAction | SetPodConditionsAction | InPlaceUpdateAction | ResizePodAction | ReleasePodAction | AdoptPodAction | PodEventAction;

export async function runPodAction(action: PodAction, ctx: ExecutionContext, state: PlanState): Promise<void> {
  const pods = ctx.client.resource<KubeObject>(podResource);
  const ns = ctx.cs.metadata.namespace;
  const write = { signal: ctx.signal };
  switch (action.kind) {
    case 'deletePod':
      return deletePod(action, ctx);
    case 'patchPod':
      return patchPod(action, ctx, state);
    case 'setPodConditions':
      return podWritten(ctx, state, action.name, await pods.patchStatus(ns, action.name, strategicMergePatch({ status: { conditions: action.write } }), write));
    case 'inPlaceUpdate':
      return updateInPlace(action, ctx, state);
    case 'resizePod':
      return resize(action, ctx, state);
    case 'beginOperation':
    case 'finishOperation':
    case 'undoOperation': {
      // A pod this plan already wrote is read again: the operation's patch is guarded by its version.
      const pod = state.written.has(action.name) ? await pods.get(ns, action.name, write) : ctx.podsByName.get(action.name);
      return podWritten(ctx, state, action.name, await writeOperation(action, pod as KubeObject | undefined, pods, ns, ctx));
    }
    case 'releasePod':
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [{ $patch: 'delete', uid: ctx.cs.metadata.uid }] } }), write);
      return;
    case 'adoptPod': {
      const resourceVersion = ctx.podsByName.get(action.name)?.metadata?.resourceVersion;
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [ownerRefTo(ctx.cs)], resourceVersion } }), write);
      return;
    }
    case 'podEvent': {
      const pod = ctx.podsByName.get(action.name);
      if (pod) ctx.recorder.event(pod, action.type, action.reason, action.reason, action.message, ctx.cs);
      return;
    }
  }
}

/** The version our write produced: later writes of this plan and the next pass's cache check use it. */
function podWritten(ctx: ExecutionContext, state: PlanState, name: string, obj: KubeObject | undefined): void {
  const rv = obj?.metadata?.resourceVersion;
  if (rv) state.written.set(name, rv);
  ctx.podWritten?.(name, rv);
}

async function deletePod(action: DeletePodAction, ctx: ExecutionContext): Promise<void> {
  ctx.expectations.expect(ctx.key, 'delete', action.name);
  // Only the pod the plan chose: a new pod that took its name meanwhile answers 409.
  const uid = ctx.podsByName.get(action.name)?.metadata?.uid;
  try {
    await ctx.client.resource<KubeObject>(podResource).delete(ctx.cs.metadata.namespace, action.name, { signal: ctx.signal, preconditions: uid ? { uid } : undefined });
    ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulDelete', 'Delete', `succeed to delete pod ${action.name}`);
  } catch (err) {
    const outcome = isNotFound(err) ? 'gone' : writeOutcome(err, ctx.signal);
    if (outcome === 'unknown') {
      // The delete may have landed: the expectation stays until the cache shows the pod go (or the
      // expectation window passes), as a create's does, so no pass plans from a cache still listing
      // it. Its claims wait too: the pod may still be running on them.
      reportUnknownOutcome(ctx, err, { reason: 'DeletePodOutcomeUnknown', action: 'Delete', subject: `pod ${action.name}` });
      return;
    }
    ctx.expectations.observe(ctx.key, 'delete', action.name);
    if (outcome === 'conflict') throw err;
    if (outcome === 'failed') {
      ctx.recorder.event(ctx.cs, 'Warning', 'FailedDelete', 'Delete', `failed to delete pod ${action.name}: ${errorMessage(err)}`);
      throw err;
    }
  }
  for (const pvc of action.withPvcs) await deleteClaim(ctx, pvc, `failed to delete pvc ${pvc}`);
}

async function patchPod(action: PatchPodAction, ctx: ExecutionContext, state: PlanState): Promise<void> {
  const metadata: Record<string, unknown> = {};
  if (action.labels) metadata.labels = action.labels;
  if (action.annotations) metadata.annotations = action.annotations;
  // ObjectMeta.finalizers merges as a set under a strategic merge patch.
  if (action.addFinalizers?.length) metadata.finalizers = action.addFinalizers;
  let patched: KubeObject;
  try {
    patched = await ctx.client.resource<KubeObject>(podResource).patch(ctx.cs.metadata.namespace, action.name, strategicMergePatch({ metadata }), { signal: ctx.signal });
  } catch (err) {
    const failure = action.outcome?.failure;
    if (failure) ctx.recorder.event(ctx.cs, failure.type, failure.reason, 'Update', `${failure.message}: ${errorMessage(err)}`);
    throw err;
  }
  podWritten(ctx, state, action.name, patched);
  const success = action.outcome?.success;
  if (success) ctx.recorder.event(ctx.cs, success.type, success.reason, 'Update', success.message);
}

async function updateInPlace(action: InPlaceUpdateAction, ctx: ExecutionContext, state: PlanState): Promise<void> {
  try {
    podWritten(ctx, state, action.name, await inPlaceUpdate(action, ctx, state));
  } catch (err) {
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedUpdatePodInPlace', 'Update', `failed to update pod ${action.name} in-place: ${errorMessage(err)}`);
    throw err;
  }
  ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulUpdatePodInPlace', 'Update', `successfully update pod ${action.name} in-place(revision ${action.revision})`);
}

async function resize(action: ResizePodAction, ctx: ExecutionContext, state: PlanState): Promise<void> {
  // The resources of each container by name (a strategic merge keyed by name): the resize
  // subresource takes nothing else, and the apiserver refuses what the node cannot hold.
  const containers = Object.entries(action.containers).map(([name, resources]) => ({ name, resources }));
  const body = strategicMergePatch({ spec: { containers } });
  try {
    podWritten(ctx, state, action.name, await ctx.client.resource<KubeObject>(podResource).patchSubresource(ctx.cs.metadata.namespace, action.name, 'resize', body, { signal: ctx.signal }));
  } catch (err) {
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedUpdatePodInPlace', 'Update', `failed to resize pod ${action.name} in-place: ${errorMessage(err)}`);
    throw err;
  }
}
