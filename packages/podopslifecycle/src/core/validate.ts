// The lifecycle validating webhook (VW) as a pure function (spec §1.8), plus one rule of ours:
// a write may not start an operation without its type (seed 001: operating and operation-type
// are added together), since such an id could never pass PreCheck. A pod already in that state
// is not refused again, so whoever fixes it can still write it.
import { POL_ANNOTATIONS, POL_PREFIXES } from '@cloneset-suite/api-types';
import { expectedFinalizers, type Pod } from './pod-state.ts';
import { keyOf, readLifecycle } from './protocol.ts';

export const VALIDATION_MESSAGE_PREFIX = 'failed to validate PodOpsLifecycleWebhook, ';

export interface LifecycleViolation {
  /** The label or annotation at fault. */
  field: string;
  reason: string;
}

/** The §1.8 rules a pod's own labels and annotations break (no old pod needed). */
export function structuralViolations(pod: Pod): LifecycleViolation[] {
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

/** Every reason VW refuses this write of a controlled pod; empty when it is allowed. */
export function validatePod(oldPod: Pod | undefined, pod: Pod): LifecycleViolation[] {
  const out = structuralViolations(pod);
  const before = readLifecycle(oldPod?.metadata?.labels).labelsById;
  for (const [id, l] of readLifecycle(pod.metadata?.labels).labelsById) {
    if (l.operating === undefined || l.operationType !== undefined) continue;
    const old = before.get(id);
    if (old?.operating !== undefined && old.operationType === undefined) continue;
    const key = keyOf('operationType', id);
    out.push({ field: `metadata.labels[${key}]`, reason: `not found label ${key}: ${keyOf('operating', id)} needs it` });
  }
  return out;
}

/** The denial message of §1.8. */
export function violationMessage(violations: readonly LifecycleViolation[]): string {
  return VALIDATION_MESSAGE_PREFIX + violations.map((v) => v.reason).join('; ');
}
