// Pod status conditions as one /status write (OpenKruise's pod refresh; OpenKruise's in-place update; OpenKruise's lifecycle state machine), and Pod Ready++
// readiness (seed 003), shared by the planners and the unit simulation.
import type { V1Pod } from '@kubernetes/client-node';
import { INPLACE_UPDATE_READY, KRUISE_POD_READY } from '../keys.ts';
import type { ConditionWrite, PodConditionPatch, SetPodConditionsAction } from '../plan.ts';
import { getCondition, podName } from './pod-state.ts';
import { rfc3339, toMillis } from '../time.ts';

/** Readiness-gate condition types whose condition is not True in `conditions`. */
export function closedGates(pod: V1Pod, conditions = pod.status?.conditions ?? []): string[] {
  return (pod.spec?.readinessGates ?? [])
    .map((g) => g.conditionType)
    .filter((type) => conditions.find((c) => c.type === type)?.status !== 'True');
}

/**
 * Pod Ready++ (seed 003): Ready when Running, every container ready and every readiness
 * gate condition True. The kubelet owns turning it True; a controller closing a gate turns
 * it False in the same write so the pod leaves endpoints before anything else happens.
 */
export function podReadiness(pod: V1Pod): boolean {
  const containersReady = (pod.status?.containerStatuses ?? []).every((c) => c.ready);
  return pod.status?.phase === 'Running' && containersReady && closedGates(pod).length === 0;
}

/**
 * The conditions list of one /status write. A strategic merge patch merges conditions by
 * type field by field, so an absent reason or message would keep the old one (e.g.
 * StartInPlaceUpdate on a True condition, which refresh then rewrites forever): absent
 * means null (delete). The transition time moves only when the status does. When the
 * change closes a readiness gate, PodReady goes False in the same write (OpenKruise's in-place update).
 */
export function conditionWrites(pod: V1Pod, changes: readonly PodConditionPatch[], nowMs: number): ConditionWrite[] {
  const now = rfc3339(nowMs);
  const existing = pod.status?.conditions ?? [];
  const since = (type: string, status: string): string => {
    const before = existing.find((e) => e.type === type);
    const at = before?.status === status ? toMillis(before.lastTransitionTime) : undefined;
    return at === undefined ? now : rfc3339(at);
  };
  const out: ConditionWrite[] = changes.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? null,
    message: c.message ?? null,
    lastTransitionTime: since(c.type, c.status),
  }));
  const after = [...existing.filter((e) => !changes.some((c) => c.type === e.type)), ...changes];
  const closing = closedGates(pod, after).filter((type) => changes.some((c) => c.type === type));
  if (closing.length > 0 && getCondition(pod, 'Ready')?.status !== 'False') {
    out.push({
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: closing.map((t) => `the status of pod readiness gate "${t}" is not "True", but False`).join(', '),
      lastTransitionTime: now,
    });
  }
  return out;
}

/** The setPodConditions action for `changes` on `pod`, with its write resolved. */
export function setPodConditions(pod: V1Pod, changes: PodConditionPatch[], nowMs: number): SetPodConditionsAction {
  return { kind: 'setPodConditions', name: podName(pod), conditions: changes, write: conditionWrites(pod, changes, nowMs) };
}

/** A new pod gets both readiness-gate conditions True in one write right after its create. */
export function initialGateConditions(nowMs: number): ConditionWrite[] {
  const now = rfc3339(nowMs);
  return [INPLACE_UPDATE_READY, KRUISE_POD_READY].map((type) => ({ type, status: 'True', reason: null, message: null, lastTransitionTime: now }));
}
