// CloneSet meets PodOpsLifecycle (README, CloneSet under PodOpsLifecycle): for controlled pods every scale-in, specified
// delete and update runs through lifecycle id `cloneset`. These pure functions decide, per pod,
// whether the CloneSet begins an operation, waits for `operate`, acts, finishes or undoes; it acts
// only on the operation it began (begun-operation.ts).
import type { V1Pod } from '@kubernetes/client-node';
import { POL_CLONESET_ID, POL_OPERATION_TYPES, POL_PROTECTION_FINALIZER_PREFIX } from '@cloneset-suite/api-types';
import { lacksOperationType, phaseOf, readLifecycle } from '@cloneset-suite/podopslifecycle/protocol';
import { OPERATING_LABEL, OPERATION_TYPE_LABEL, cloneSetLifecycle, type CloneSetOperation, type CloneSetOperationType } from './begun-operation.ts';
import type { OperationAction, PlanAction, PodEventAction } from '../plan.ts';
import { isControlled, podLabels, podName } from '../pods/pod-state.ts';
import { preCheckRejections } from './rule-rejections.ts';
import type { Hold, Wait } from '../wait.ts';

export type { CloneSetOperationType } from './begun-operation.ts';

/** A cooperation controller still protects the pod: nothing may delete or update it. */
export function isProtected(pod: V1Pod): boolean {
  return (pod.metadata?.finalizers ?? []).some((f) => f.startsWith(POL_PROTECTION_FINALIZER_PREFIX));
}

/** The type label of a running `cloneset` operation (`operating/cloneset` present), whoever wrote it. */
export function cloneSetOperation(pod: V1Pod): string | undefined {
  const labels = podLabels(pod);
  return labels[OPERATING_LABEL] === undefined ? undefined : labels[OPERATION_TYPE_LABEL];
}

/** What the CloneSet is about to do to a pod: delete it, update it in place, or mark it for a re-create. */
export type CloneSetAct = 'delete' | 'updateInPlace' | 'recreate';

/**
 * The operation the CloneSet begins for an act (Kuperator's operation SDK): a scale-in for a delete, an update
 * otherwise; an update that re-creates the pod announces the delete (`preparing-to-delete`) at
 * begin, as a scale-in does.
 */
const OPERATION_FOR: Readonly<Record<CloneSetAct, CloneSetOperation>> = {
  delete: { type: POL_OPERATION_TYPES.scaleIn, deletesPod: true },
  updateInPlace: { type: POL_OPERATION_TYPES.update, deletesPod: false },
  recreate: { type: POL_OPERATION_TYPES.update, deletesPod: true },
};

/**
 * Whether a begun operation covers the act: a delete needs an operation announced as deleting
 * (a scale-in, or an update that re-creates the pod: its delete goes through the Scale step as a
 * specified delete); an in-place update needs an update; a re-create an update that announced it.
 */
function covers(operation: CloneSetOperation, act: CloneSetAct): boolean {
  switch (act) {
    case 'delete':
      return operation.deletesPod;
    case 'updateInPlace':
      return operation.type === POL_OPERATION_TYPES.update;
    case 'recreate':
      return operation.type === POL_OPERATION_TYPES.update && operation.deletesPod;
  }
}

/** The operation the CloneSet began and still runs as it began it, and whether `operate` was granted. */
export function ownOperation(pod: V1Pod): { operation: CloneSetOperation; granted: boolean } | undefined {
  const lc = cloneSetLifecycle(pod);
  return lc.state === 'ours' ? lc : undefined;
}

/** The operation the CloneSet began on the pod, even when its type label was changed since. */
function begunOperation(pod: V1Pod): CloneSetOperation | undefined {
  const lc = cloneSetLifecycle(pod);
  return lc.state === 'ours' ? lc.operation : lc.state === 'altered' ? lc.begun : undefined;
}

/** The CloneSet began an operation of this type on the pod (whatever its labels say now). */
export function isBegun(pod: V1Pod, type: CloneSetOperationType): boolean {
  return begunOperation(pod)?.type === type;
}

/** A granted operation of this type that the CloneSet began and still runs. */
export function isGranted(pod: V1Pod, type: CloneSetOperationType): boolean {
  const own = ownOperation(pod);
  return own !== undefined && own.granted && own.operation.type === type;
}

/**
 * Whether the CloneSet may do `act` to the pod now: the lifecycle granted the operation it began
 * for it, and no cooperation controller protects the pod. Uncontrolled pods always may.
 */
export function mayOperate(pod: V1Pod, act: CloneSetAct): boolean {
  if (!isControlled(pod)) return true;
  const own = ownOperation(pod);
  return own !== undefined && own.granted && !isProtected(pod) && covers(own.operation, act);
}

/** What the CloneSet does toward an act on a pod: the actions, and what it waits for instead of acting. */
export interface Gated {
  actions: PlanAction[];
  waits: Wait[];
}

/**
 * `actions` when the CloneSet may do `act` to the pod; otherwise what brings it closer: a begin,
 * an undo of another operation of ours that may still be undone (before operate), an undo of an
 * update begun in place that must now re-create the pod (begun again, announcing the delete), or
 * nothing while it waits, and then the wait. A pod whose labels no longer say what the CloneSet
 * began is left to planAlteredOperations.
 */
export function throughLifecycle(pod: V1Pod, act: CloneSetAct, actions: PlanAction[]): Gated {
  if (mayOperate(pod, act)) return { actions, waits: [] };
  const name = podName(pod);
  const lc = cloneSetLifecycle(pod);
  const wanted = OPERATION_FOR[act];
  const only = (a: PlanAction[]): Gated => ({ actions: a, waits: [] });
  switch (lc.state) {
    case 'idle':
      return only([{ kind: 'beginOperation', name, type: wanted.type, deletesPod: wanted.deletesPod }]);
    case 'altered':
      return only([]);
    case 'ours':
      if (covers(lc.operation, act)) return { actions: [], waits: lifecycleWaits(pod, lc.operation.type, lc.granted) };
      if (lc.operation.type === wanted.type) return only([{ kind: 'undoOperation', name, type: lc.operation.type }]);
      return only(lc.granted ? [] : [{ kind: 'undoOperation', name, type: lc.operation.type }]);
  }
}

/**
 * Why the CloneSet waits on a pod its own operation covers: the lifecycle has not granted operate
 * yet (in which phase), or a cooperation controller's protection finalizer still keeps it. A pod a
 * PodTransitionRule rejects in PreCheck is said by that rule's hold (rule-waits.ts) instead.
 */
function lifecycleWaits(pod: V1Pod, operationType: string, granted: boolean): Wait[] {
  const pods = [podName(pod)];
  const finalizers = (pod.metadata?.finalizers ?? []).filter((f) => f.startsWith(POL_PROTECTION_FINALIZER_PREFIX));
  if (granted) return finalizers.length > 0 ? [{ kind: 'protectionFinalizer', pods, operationType, phase: 'Operating', finalizers }] : [];
  const own = readLifecycle(podLabels(pod)).labelsById.get(POL_CLONESET_ID) ?? {};
  const phase = lacksOperationType(own) ? 'NoOperationType' : (phaseOf(own) ?? 'PreCheck');
  if (phase === 'PreCheck' && preCheckRejections(pod).length > 0) return [];
  if (phase === 'Preparing' && finalizers.length > 0) return [{ kind: 'protectionFinalizer', pods, operationType, phase, finalizers }];
  return [{ kind: 'podOpsLifecycle', pods, operationType, phase }];
}

/** Pods the CloneSet chose for an operation type in this pass; undefined when the step did not decide. */
export type WantedPods = ReadonlySet<string> | undefined;

/**
 * Undo (as Kuperator's CollaSet does): a controlled pod whose `cloneset` operation of a decided type has not been
 * granted `operate` yet and that the pass no longer chose for it.
 */
export function planUndos(pods: readonly V1Pod[], wanted: Readonly<Record<CloneSetOperationType, WantedPods>>): OperationAction[] {
  const out: OperationAction[] = [];
  for (const pod of pods) {
    const own = ownOperation(pod);
    if (!isControlled(pod) || own === undefined || own.granted || pod.metadata?.deletionTimestamp) continue;
    const chosen = wanted[own.operation.type];
    if (chosen === undefined || chosen.has(podName(pod))) continue;
    out.push({ kind: 'undoOperation', name: podName(pod), type: own.operation.type });
  }
  return out;
}

export const OPERATION_TYPE_MISMATCH_REASON = 'OperationTypeMismatch';

/**
 * Pods whose `operation-type/cloneset` no longer says what the CloneSet began (someone overwrote
 * it): never deleted nor updated for it. A Warning Event on the pod says which label and what the
 * CloneSet expected. Before `operate` nothing was done to the pod yet, so the operation is undone
 * and the CloneSet begins again with its own labels. After `operate` the pod may be mid-update
 * (undoing it would skip the PostCheck of a change already made), so it waits for the label to be
 * put back, or for whoever changed it to undo the operation.
 */
export function planAlteredOperations(pods: readonly V1Pod[]): (OperationAction | PodEventAction)[] {
  const out: (OperationAction | PodEventAction)[] = [];
  for (const pod of pods) {
    const lc = cloneSetLifecycle(pod);
    if (!isControlled(pod) || lc.state !== 'altered' || pod.metadata?.deletionTimestamp) continue;
    const name = podName(pod);
    const undoType = lc.labelType ?? lc.begun?.type ?? POL_OPERATION_TYPES.update;
    const next = lc.granted
      ? `operate was granted, so it waits: put the label back, or undo the operation (label undo-operation-type.podopslifecycle.kusionstack.io/cloneset=${undoType})`
      : 'operate was not granted yet: the operation is undone and the CloneSet begins again with its own labels';
    out.push({ kind: 'podEvent', name, type: 'Warning', reason: OPERATION_TYPE_MISMATCH_REASON, message: `${lc.why}; the CloneSet neither deletes nor updates the pod for it; ${next}` });
    if (!lc.granted) out.push({ kind: 'undoOperation', name, type: undoType });
  }
  return out;
}

/**
 * The granted pods planAlteredOperations leaves waiting, as one hold on the PodsHeld condition:
 * the CloneSet has nothing to do for them until their label says again what it began.
 */
export function alteredOperationWaits(pods: readonly V1Pod[]): Hold[] {
  const held = pods.filter((p) => {
    const lc = cloneSetLifecycle(p);
    return isControlled(p) && lc.state === 'altered' && lc.granted && !p.metadata?.deletionTimestamp;
  });
  if (held.length === 0) return [];
  return [{ kind: 'operationTypeLabel', label: OPERATION_TYPE_LABEL, pods: held.map(podName).sort() }];
}

/** Puts pods the CloneSet began a `type` operation on first, keeping the order otherwise. */
export function inOperationFirst(pods: readonly V1Pod[], type: CloneSetOperationType): V1Pod[] {
  const inOps = pods.filter((p) => isBegun(p, type));
  return [...inOps, ...pods.filter((p) => !isBegun(p, type))];
}
