// Which PodOpsLifecycle operation of id `cloneset` the CloneSet itself began on a pod. Its begin
// writes, in the same patch as `operating` and `operation-type`, a record of what it began: the
// type, whether the operation deletes the pod, and the `operating` timestamp of that begin. The
// CloneSet acts only on an operation whose labels still say what the record says; anyone may
// overwrite `operation-type/cloneset` (the lifecycle's webhooks allow it), and a hand edit must
// never turn an in-place update into a delete. The timestamp ties the record to one run: after an
// undo (ours, someone else's) and a later begin, the record of the earlier run no longer matches.
// The record is on the pod, so a restarted manager reads what it began.
import type { V1Pod } from '@kubernetes/client-node';
import { POL_CLONESET_ID, POL_LABELS, POL_OPERATION_TYPES, POL_PREFIXES, polKey } from '@cloneset-suite/api-types';
import { memoByPod } from '../pods/pod-memo.ts';
import { podLabels } from '../pods/pod-state.ts';

/** The suite's own annotation (not a KusionStack key, hence its domain). */
export const CLONESET_OPERATION_ANNOTATION = 'podopslifecycle.cloneset-suite.io/cloneset-operation';

export const OPERATING_LABEL = polKey(POL_PREFIXES.operating, POL_CLONESET_ID);
export const OPERATION_TYPE_LABEL = polKey(POL_PREFIXES.operationType, POL_CLONESET_ID);
export const OPERATE_LABEL = polKey(POL_PREFIXES.operate, POL_CLONESET_ID);

export type CloneSetOperationType = typeof POL_OPERATION_TYPES.scaleIn | typeof POL_OPERATION_TYPES.update;

/** An operation of the CloneSet: its type, and whether it deletes the pod (a scale-in, a recreate update). */
export interface CloneSetOperation {
  type: CloneSetOperationType;
  deletesPod: boolean;
}

/** What a begin recorded on the pod: the operation and the `operating/cloneset` value it wrote. */
export interface OperationRecord extends CloneSetOperation {
  operating: string;
}

const isOperationType = (t: unknown): t is CloneSetOperationType => t === POL_OPERATION_TYPES.scaleIn || t === POL_OPERATION_TYPES.update;

export function formatOperationRecord(r: OperationRecord): string {
  return JSON.stringify({ type: r.type, deletesPod: r.deletesPod, operating: r.operating });
}

/** The record, or undefined when the value is absent or not one the CloneSet writes. */
export function parseOperationRecord(value: string | undefined): OperationRecord | undefined {
  if (value === undefined) return undefined;
  try {
    const r = JSON.parse(value) as Partial<OperationRecord> | null;
    if (!r || !isOperationType(r.type) || typeof r.deletesPod !== 'boolean' || typeof r.operating !== 'string') return undefined;
    return { type: r.type, deletesPod: r.deletesPod, operating: r.operating };
  } catch {
    return undefined;
  }
}

/** Where a pod stands with lifecycle id `cloneset`, as far as the CloneSet may act on it. */
export type CloneSetLifecycle =
  /** No `operating/cloneset`: nothing of the CloneSet's runs. */
  | { state: 'idle' }
  /** The operation the CloneSet began, as it began it; `granted`: `operate/cloneset` is there. */
  | { state: 'ours'; operation: CloneSetOperation; granted: boolean }
  /**
   * `operation-type/cloneset` (`labelType`) no longer says what the CloneSet began (`begun`, when
   * its record tells): it never acts on it. `why` says so in words.
   */
  | { state: 'altered'; why: string; granted: boolean; labelType: string | undefined; begun: CloneSetOperation | undefined };

const inWords = (op: CloneSetOperation): string =>
  op.type === POL_OPERATION_TYPES.scaleIn ? 'a scale-in' : op.deletesPod ? 'an update that re-creates the pod' : 'an in-place update';

/**
 * The record decides when it matches the running `operating` timestamp. Without one (an operation
 * begun by a version that wrote none, or by hand) the labels are read instead: the type label,
 * and a delete announced at begin (`preparing-to-delete` written with the `operating` timestamp,
 * as every begin of a deleting operation writes them); a `scale-in` without that announcement
 * was not begun as one.
 */
export const cloneSetLifecycle = memoByPod((pod: V1Pod): CloneSetLifecycle => {
  const labels = podLabels(pod);
  const operating = labels[OPERATING_LABEL];
  if (operating === undefined) return { state: 'idle' };
  const granted = labels[OPERATE_LABEL] !== undefined;
  const type = labels[OPERATION_TYPE_LABEL];
  const shown = type === undefined ? 'missing' : `"${type}"`;
  const record = parseOperationRecord(pod.metadata?.annotations?.[CLONESET_OPERATION_ANNOTATION]);
  if (record && record.operating === operating) {
    if (type === record.type) return { state: 'ours', operation: { type: record.type, deletesPod: record.deletesPod }, granted };
    const begun = { type: record.type, deletesPod: record.deletesPod };
    return { state: 'altered', granted, labelType: type, begun, why: `label ${OPERATION_TYPE_LABEL} is ${shown}, but the CloneSet began ${inWords(begun)} ("${begun.type}") on this pod` };
  }
  if (!isOperationType(type)) return { state: 'altered', granted, labelType: type, begun: undefined, why: `label ${OPERATION_TYPE_LABEL} is ${shown}: not an operation the CloneSet runs` };
  const deletesPod = labels[POL_LABELS.preparingToDelete] === operating;
  if (type === POL_OPERATION_TYPES.scaleIn && !deletesPod) {
    return { state: 'altered', granted, labelType: type, begun: undefined, why: `label ${OPERATION_TYPE_LABEL} is "scale-in", but no scale-in was begun on this pod (its begin writes ${POL_LABELS.preparingToDelete} with the ${OPERATING_LABEL} timestamp)` };
  }
  return { state: 'ours', operation: { type, deletesPod }, granted };
});
