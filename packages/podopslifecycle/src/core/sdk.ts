// The operation controller SDK (package README, The operation SDK) as pure functions: each computes the label change an
// operating controller writes; reconciler/ops-client.ts applies it with conflict retry.
import { POL_LABELS } from '@cloneset-suite/api-types';
import { applyChanges, effectiveChanges, noLabelChanges, type LabelChanges } from './label-patch.ts';
import type { Pod } from './pod-state.ts';
import { isNanoTimestamp, keyOf, readLifecycle } from './protocol.ts';

/** What one operating controller is: its lifecycle id, its operation type and its hooks. */
export interface OperationAdapter {
  id: string;
  type: string;
  /** May begin while another id already carries the same type (every built-in adapter may). */
  allowMultiType?: boolean;
  /** Extra labels written with begin (e.g. preparingToDeleteHook for delete-type operations). */
  whenBegin?(pod: Pod, now: string): Partial<LabelChanges>;
  /** Extra labels written with finish. */
  whenFinish?(pod: Pod, now: string): Partial<LabelChanges>;
}

export type SdkPlan = { ok: true; changes: LabelChanges } | { ok: false; error: string };

/** The hint that the operation will delete the pod; never removed by the lifecycle. */
export const preparingToDeleteHook = (_pod: Pod, now: string): Partial<LabelChanges> => ({ set: { [POL_LABELS.preparingToDelete]: now } });

const labelsOf = (pod: Pod): Readonly<Record<string, string>> => pod.metadata?.labels ?? {};

function merge(pod: Pod, base: LabelChanges, ...extra: (Partial<LabelChanges> | undefined)[]): LabelChanges {
  const all = extra.reduce<LabelChanges>(
    (acc, e) => ({ set: { ...acc.set, ...(e?.set ?? {}) }, remove: [...acc.remove, ...(e?.remove ?? [])] }),
    base,
  );
  return effectiveChanges(labelsOf(pod), all);
}

/** isDuringOps: `operating/<id>` present and `operation-type/<id>` equals the adapter's type. */
export function isDuringOps(pod: Pod, adapter: Pick<OperationAdapter, 'id' | 'type'>): boolean {
  const labels = labelsOf(pod);
  return labels[keyOf('operating', adapter.id)] !== undefined && labels[keyOf('operationType', adapter.id)] === adapter.type;
}

/** begin: operating + operation-type (and the hooks' labels) in one write. */
export function planBegin(pod: Pod, adapter: OperationAdapter, now: string): SdkPlan {
  const labels = labelsOf(pod);
  const base = noLabelChanges();
  if (!isDuringOps(pod, adapter)) {
    if (!adapter.allowMultiType) {
      const other = Object.entries(labels).find(
        ([k, v]) => v === adapter.type && k.startsWith(keyOf('operationType', '')) && k !== keyOf('operationType', adapter.id),
      );
      if (other) return { ok: false, error: `operation type ${adapter.type} is already in progress on the pod (${other[0]})` };
    }
    if (labels[keyOf('operating', adapter.id)] === undefined) base.set[keyOf('operating', adapter.id)] = now;
    base.set[keyOf('operationType', adapter.id)] = adapter.type;
  }
  const preview = { ...pod, metadata: { ...pod.metadata, labels: applyChanges(labels, base) } };
  return { ok: true, changes: merge(pod, base, adapter.whenBegin?.(preview, now)) };
}

export interface AllowOpsResult {
  allowed: boolean;
  /** When the operate label is younger than the delay: how long until it is old enough. */
  requeueAfterMs?: number;
}

/**
 * allowOps: during ops and `operate/<id>` present. With a delay, the operate label must be
 * at least that old (kube-xset's reading: not allowed yet, requeue after the remaining time).
 */
export function allowOps(pod: Pod, adapter: Pick<OperationAdapter, 'id' | 'type'>, nowMs: number, delaySeconds = 0): AllowOpsResult {
  if (!isDuringOps(pod, adapter)) return { allowed: false };
  const operate = labelsOf(pod)[keyOf('operate', adapter.id)];
  if (operate === undefined) return { allowed: false };
  if (delaySeconds <= 0) return { allowed: true };
  // A value that is no timestamp (a hand edit) never skips the delay: the mutating webhook
  // rewrites it to the time of the pod's next write, and the delay counts from there.
  if (!isNanoTimestamp(operate)) return { allowed: false, requeueAfterMs: delaySeconds * 1000 };
  const since = BigInt(operate);
  const remaining = Number(since / 1_000_000n) + delaySeconds * 1000 - nowMs;
  return remaining > 0 ? { allowed: false, requeueAfterMs: remaining } : { allowed: true };
}

/** finish: remove `operating/<id>` (operation-type stays for LW to turn into done-operation-type). */
export function planFinish(pod: Pod, adapter: OperationAdapter, now: string): SdkPlan {
  const labels = labelsOf(pod);
  const type = labels[keyOf('operationType', adapter.id)];
  if (type !== undefined && type !== adapter.type) {
    return { ok: false, error: `lifecycle ${adapter.id} runs operation type ${type}, not ${adapter.type}` };
  }
  if (labels[keyOf('operating', adapter.id)] === undefined) return { ok: true, changes: noLabelChanges() };
  return { ok: true, changes: merge(pod, { set: {}, remove: [keyOf('operating', adapter.id)] }, adapter.whenFinish?.(pod, now)) };
}

/**
 * undo: `undo-operation-type/<id>=<type>`; LW then removes every label of the id in the
 * same write. Nothing to undo when the id is not on the pod.
 */
export function planUndo(pod: Pod, adapter: Pick<OperationAdapter, 'id' | 'type'>): SdkPlan {
  if (!readLifecycle(labelsOf(pod)).ids.includes(adapter.id)) return { ok: true, changes: noLabelChanges() };
  return { ok: true, changes: effectiveChanges(labelsOf(pod), { set: { [keyOf('undoOperationType', adapter.id)]: adapter.type }, remove: [] }) };
}

/** beginWithCleaningOld: an undo first when `operating/<id>` is present, then a begin. */
export function needsCleaningBeforeBegin(pod: Pod, adapter: Pick<OperationAdapter, 'id'>): boolean {
  return labelsOf(pod)[keyOf('operating', adapter.id)] !== undefined;
}
