// CloneSet meets PodOpsLifecycle (decisions.md): for controlled pods every scale-in, specified
// delete and update runs through lifecycle id `cloneset`. These pure functions decide, per pod,
// whether the CloneSet begins an operation, waits for `operate`, acts, finishes or undoes.
import type { V1Pod } from '@kubernetes/client-node';
import {
  POL_CLONESET_ID,
  POL_OPERATION_TYPES,
  POL_PREFIXES,
  POL_PROTECTION_FINALIZER_PREFIX,
  polKey,
} from '@cloneset-suite/api-types';
import type { OperationAction, PlanAction } from './plan.ts';
import { isControlled, podLabels, podName } from './pod-state.ts';

export type CloneSetOperationType = typeof POL_OPERATION_TYPES.scaleIn | typeof POL_OPERATION_TYPES.update;

const OPERATING = polKey(POL_PREFIXES.operating, POL_CLONESET_ID);
const OPERATION_TYPE = polKey(POL_PREFIXES.operationType, POL_CLONESET_ID);
const OPERATE = polKey(POL_PREFIXES.operate, POL_CLONESET_ID);

/** Scope of PodOpsLifecycle (decisions.md choice 1). Anything else behaves as under OpenKruise. */

/** A cooperation controller still protects the pod: nothing may delete or update it. */
export function isProtected(pod: V1Pod): boolean {
  return (pod.metadata?.finalizers ?? []).some((f) => f.startsWith(POL_PROTECTION_FINALIZER_PREFIX));
}

/** The type of the CloneSet's running operation on the pod (`operating/cloneset` present), if any. */
export function cloneSetOperation(pod: V1Pod): string | undefined {
  const labels = podLabels(pod);
  return labels[OPERATING] === undefined ? undefined : labels[OPERATION_TYPE];
}

/** The lifecycle granted the CloneSet's operation: `operating` and `operate` of id cloneset. */
export function isOperateGranted(pod: V1Pod): boolean {
  const labels = podLabels(pod);
  return labels[OPERATING] !== undefined && labels[OPERATE] !== undefined;
}

/**
 * Whether the CloneSet may delete (any type of its own operation granted: a recreate update is
 * deleted as a specified delete) or update (an `update` operation granted) the pod now.
 * Uncontrolled pods always may.
 */
export function mayOperate(pod: V1Pod, type: CloneSetOperationType): boolean {
  if (!isControlled(pod)) return true;
  if (isProtected(pod) || !isOperateGranted(pod)) return false;
  return type === POL_OPERATION_TYPES.scaleIn || cloneSetOperation(pod) === type;
}

/**
 * `actions` when the CloneSet may act on the pod; otherwise what brings it closer: a begin
 * (an undo first when another type of ours is still before operate), or nothing while it waits.
 */
export function throughLifecycle(pod: V1Pod, type: CloneSetOperationType, actions: PlanAction[]): PlanAction[] {
  if (mayOperate(pod, type)) return actions;
  const name = podName(pod);
  const running = cloneSetOperation(pod);
  if (running === type || isOperateGranted(pod)) return [];
  if (running !== undefined) return [{ kind: 'undoOperation', name, type: running }];
  return [{ kind: 'beginOperation', name, type }];
}

/** Pods the CloneSet chose for an operation type in this pass; undefined when the step did not decide. */
export type WantedPods = ReadonlySet<string> | undefined;

/**
 * Undo (spec §3): a controlled pod whose `cloneset` operation of a decided type has not been
 * granted `operate` yet and that the pass no longer chose for it.
 */
export function planUndos(pods: readonly V1Pod[], wanted: Readonly<Record<CloneSetOperationType, WantedPods>>): OperationAction[] {
  const out: OperationAction[] = [];
  for (const pod of pods) {
    const running = cloneSetOperation(pod);
    if (!isControlled(pod) || running === undefined || isOperateGranted(pod) || pod.metadata?.deletionTimestamp) continue;
    const chosen = wanted[running as CloneSetOperationType];
    if (chosen === undefined || chosen.has(podName(pod))) continue;
    out.push({ kind: 'undoOperation', name: podName(pod), type: running });
  }
  return out;
}

/** Puts pods already in the CloneSet's `type` operation first, keeping the order otherwise. */
export function inOperationFirst(pods: readonly V1Pod[], type: CloneSetOperationType): V1Pod[] {
  const inOps = pods.filter((p) => cloneSetOperation(p) === type);
  return [...inOps, ...pods.filter((p) => cloneSetOperation(p) !== type)];
}
