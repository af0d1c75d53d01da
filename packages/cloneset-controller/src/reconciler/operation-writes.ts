// The PodOpsLifecycle writes of a plan (begin, finish, undo of id `cloneset`): the SDK's pure
// planners compute the label change on the pod the plan saw; it goes out as a JSON patch guarded
// by that resourceVersion, so a pod that moved meanwhile fails the write and the next pass replans.
import { POL_CLONESET_ID, POL_OPERATION_TYPES, nanoTimestamp } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';
import { jsonPatch, type KubeObject, type ResourceClient } from '@cloneset-suite/kube-runtime';
import { labelPatchOps, planBegin, planFinish, planUndo, preparingToDeleteHook, type OperationAdapter, type SdkPlan } from '@cloneset-suite/podopslifecycle';
import type { OperationAction } from '../core/plan.ts';

/** The CloneSet's adapter for one operation type: a scale-in carries the preparing-to-delete hint (§1.12). */
export function cloneSetAdapter(type: string): OperationAdapter {
  return {
    id: POL_CLONESET_ID,
    type,
    allowMultiType: true,
    ...(type === POL_OPERATION_TYPES.scaleIn ? { whenBegin: preparingToDeleteHook } : {}),
  };
}

export function planOperationWrite(action: OperationAction, pod: V1Pod, now: string): SdkPlan {
  const adapter = cloneSetAdapter(action.type);
  switch (action.kind) {
    case 'beginOperation':
      return planBegin(pod, adapter, now);
    case 'finishOperation':
      return planFinish(pod, adapter, now);
    case 'undoOperation':
      return planUndo(pod, adapter);
  }
}

export async function writeOperation(
  action: OperationAction,
  pod: KubeObject | undefined,
  pods: ResourceClient<KubeObject>,
  namespace: string | undefined,
  ctx: { signal: AbortSignal },
): Promise<KubeObject | undefined> {
  if (!pod) throw new Error(`pod ${action.name} is not in the cache`);
  // Label values are timestamps of the write (Unix nanoseconds, §1.2).
  const plan = planOperationWrite(action, pod as unknown as V1Pod, nanoTimestamp());
  if (!plan.ok) throw new Error(`${action.kind} ${action.type} on pod ${action.name}: ${plan.error}`);
  const ops = labelPatchOps(pod.metadata?.labels, plan.changes);
  if (ops.length === 0) return undefined;
  const rv = pod.metadata?.resourceVersion;
  return pods.patch(namespace, action.name, jsonPatch(ops, rv ? { resourceVersion: rv } : {}), { signal: ctx.signal });
}
