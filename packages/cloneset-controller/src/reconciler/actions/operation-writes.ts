// The PodOpsLifecycle writes of a plan (begin, finish, undo of id `cloneset`): the SDK's pure
// planners compute the label change on the pod the plan saw; a begin also records what the
// CloneSet began (begun-operation.ts), and a finish or undo of ours drops that record. It goes out
// as a JSON patch guarded by that resourceVersion, so a pod that moved meanwhile fails the write
// and the next pass replans.
import { POL_CLONESET_ID, POL_OPERATION_TYPES, nanoTimestamp } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';
import { jsonPatch, jsonPointerEscape, type Clock, type JsonPatchOperation, type KubeObject, type ResourceClient } from '@cloneset-suite/kube-runtime';
import { labelPatchOps, planBegin, planFinish, planUndo, preparingToDeleteHook, type LabelChanges, type OperationAdapter } from '@cloneset-suite/podopslifecycle';
import { CLONESET_OPERATION_ANNOTATION, OPERATING_LABEL, formatOperationRecord, type CloneSetOperationType } from '../../core/lifecycle/begun-operation.ts';
import type { OperationAction } from '../../core/plan.ts';

/** The CloneSet's adapter for one operation type: an operation that deletes the pod carries the preparing-to-delete hint (Kuperator's operation SDK). */
export function cloneSetAdapter(type: string, deletesPod: boolean): OperationAdapter {
  return {
    id: POL_CLONESET_ID,
    type,
    allowMultiType: true,
    ...(deletesPod ? { whenBegin: preparingToDeleteHook } : {}),
  };
}

/** The annotation change that goes with the labels: the record set (a begin) or removed (a finish or an undo). */
export interface OperationWrite {
  labels: LabelChanges;
  /** The record's new value; null removes it. Absent: no change. */
  record?: string | null;
}

export type OperationWritePlan = { ok: true; write: OperationWrite } | { ok: false; error: string };

export function planOperationWrite(action: OperationAction, pod: V1Pod, now: string): OperationWritePlan {
  // Every begin the planner makes says whether it deletes the pod; a scale-in always does.
  const deletesPod = action.deletesPod ?? action.type === POL_OPERATION_TYPES.scaleIn;
  const adapter = cloneSetAdapter(action.type, deletesPod);
  const hasRecord = pod.metadata?.annotations?.[CLONESET_OPERATION_ANNOTATION] !== undefined;
  const plan = action.kind === 'beginOperation' ? planBegin(pod, adapter, now) : action.kind === 'finishOperation' ? planFinish(pod, adapter, now) : planUndo(pod, adapter);
  if (!plan.ok) return plan;
  if (action.kind !== 'beginOperation') return { ok: true, write: { labels: plan.changes, ...(hasRecord ? { record: null } : {}) } };
  const operating = plan.changes.set[OPERATING_LABEL] ?? pod.metadata?.labels?.[OPERATING_LABEL] ?? now;
  const record = formatOperationRecord({ type: action.type as CloneSetOperationType, deletesPod, operating });
  return { ok: true, write: { labels: plan.changes, record } };
}

const RECORD_PATH = `/metadata/annotations/${jsonPointerEscape(CLONESET_OPERATION_ANNOTATION)}`;

/** JSON patch operations for the write on a pod with these labels and annotations. */
export function operationPatchOps(pod: V1Pod, write: OperationWrite): JsonPatchOperation[] {
  const ops = labelPatchOps(pod.metadata?.labels, write.labels);
  const annotations = pod.metadata?.annotations;
  if (write.record === null && annotations?.[CLONESET_OPERATION_ANNOTATION] !== undefined) ops.push({ op: 'remove', path: RECORD_PATH });
  if (typeof write.record === 'string' && annotations?.[CLONESET_OPERATION_ANNOTATION] !== write.record) {
    ops.push(annotations === undefined ? { op: 'add', path: '/metadata/annotations', value: { [CLONESET_OPERATION_ANNOTATION]: write.record } } : { op: 'add', path: RECORD_PATH, value: write.record });
  }
  return ops;
}

export async function writeOperation(
  action: OperationAction,
  pod: KubeObject | undefined,
  pods: ResourceClient<KubeObject>,
  namespace: string | undefined,
  ctx: { signal: AbortSignal; clock: Clock },
): Promise<KubeObject | undefined> {
  if (!pod) throw new Error(`pod ${action.name} is not in the cache`);
  // Label values are timestamps of the write (Unix nanoseconds, as Kuperator writes them), read
  // from the manager's clock as every other time the controller writes.
  const plan = planOperationWrite(action, pod as unknown as V1Pod, nanoTimestamp(ctx.clock.now()));
  if (!plan.ok) throw new Error(`${action.kind} ${action.type} on pod ${action.name}: ${plan.error}`);
  const ops = operationPatchOps(pod as unknown as V1Pod, plan.write);
  if (ops.length === 0) return undefined;
  const rv = pod.metadata?.resourceVersion;
  return pods.patch(namespace, action.name, jsonPatch(ops, rv ? { resourceVersion: rv } : {}), { signal: ctx.signal });
}
