// The lifecycle validating webhook (VW) as a pure function: no stricter than
// Kuperator's (an `operating/<id>` without its `operation-type/<id>` is admitted: operators may
// write them in two writes, and such an id waits in PreCheck). One rule of ours concerns what a
// write asks for rather than the pod it leaves, so the mutating webhook checks it before it moves
// the labels on: an undo must name the type of the operation it cancels.
import { POL_ANNOTATIONS, POL_PREFIXES } from '@cloneset-suite/api-types';
import { expectedFinalizers, type Pod } from './pod-state.ts';
import { keyOf, readLifecycle } from './protocol.ts';

export const VALIDATION_MESSAGE_PREFIX = 'failed to validate PodOpsLifecycleWebhook, ';

export interface LifecycleViolation {
  /** The label or annotation at fault. */
  field: string;
  reason: string;
}

/** Every rule of Kuperator's validating webhook the pod's labels and annotations break: VW refuses the write when any. */
export function validatePod(pod: Pod): LifecycleViolation[] {
  const out: LifecycleViolation[] = [];
  const ef = expectedFinalizers(pod);
  if (!ef.ok) {
    const key = POL_ANNOTATIONS.availableConditions;
    out.push({ field: `metadata.annotations[${key}]`, reason: `invalid annotation ${key}: ${ef.error}` });
  }
  const view = readLifecycle(pod.metadata?.labels);
  for (const key of view.invalidKeys) {
    out.push({ field: `metadata.labels[${key}]`, reason: `invalid label ${key}: expected <prefix>/<id>` });
  }
  for (const [id, l] of view.labelsById) {
    if (l.operated !== undefined && l.doneOperationType === undefined) out.push(missingLabel(keyOf('doneOperationType', id)));
    if (l.doneOperationType !== undefined && l.operated === undefined) out.push(missingLabel(keyOf('operated', id)));
  }
  const anyPreChecked = [...view.labelsById.values()].some((l) => l.preChecked !== undefined);
  const anyPermission = view.permissions.size > 0;
  if (anyPreChecked !== anyPermission) {
    const missing = anyPreChecked ? POL_PREFIXES.operationPermission : POL_PREFIXES.preChecked;
    out.push({ field: `metadata.labels[${missing}/*]`, reason: `not found the expected label prefixes: ${missing}` });
  }
  return out;
}

function missingLabel(key: string): LifecycleViolation {
  return { field: `metadata.labels[${key}]`, reason: `not found label ${key}` };
}

/**
 * Reasons to refuse a write as it was sent, before the mutating webhook acts on it (which
 * consumes an undo label in the same write): an `undo-operation-type/<id>` naming a type the id
 * does not run. An undo of an id with no type at all is left to the webhook, which clears it.
 */
export function requestViolations(pod: Pod): LifecycleViolation[] {
  const out: LifecycleViolation[] = [];
  for (const [id, l] of readLifecycle(pod.metadata?.labels).labelsById) {
    if (l.undoOperationType === undefined) continue;
    const types = [...new Set([l.operationType, l.doneOperationType].filter((t): t is string => t !== undefined))];
    if (types.length === 0 || types.includes(l.undoOperationType)) continue;
    const key = keyOf('undoOperationType', id);
    out.push({
      field: `metadata.labels[${key}]`,
      reason: `invalid label ${key}=${l.undoOperationType}: lifecycle ${id} runs operation type ${types.join(', ')}; an undo names the type it cancels`,
    });
  }
  return out;
}

/** The denial message of Kuperator's validating webhook. */
export function violationMessage(violations: readonly LifecycleViolation[]): string {
  return VALIDATION_MESSAGE_PREFIX + violations.map((v) => v.reason).join('; ');
}
