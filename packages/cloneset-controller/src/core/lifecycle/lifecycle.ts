// Lifecycle hook predicates and KruisePodReady bookkeeping (OpenKruise's lifecycle hooks; OpenKruise's lifecycle state machine).
import type { V1Pod } from '@kubernetes/client-node';
import { KRUISE_POD_READY, LIFECYCLE_STATE_LABEL, LIFECYCLE_TIMESTAMP_ANNOTATION } from '../keys.ts';
import { someIn } from '../frozen-lists.ts';
import type { PatchPodAction, PodConditionPatch } from '../plan.ts';
import { getCondition, lifecycleState, podLabels, podName } from '../pods/pod-state.ts';
import { rfc3339 } from '../time.ts';
import type { Hook } from '../types.ts';

function hookEntries(hook: Hook) {
  return { labels: Object.entries(hook.labelsHandler ?? {}), finalizers: hook.finalizersHandler ?? [] };
}

/** hooked: the pod carries any of the hook's finalizers or k=v labels (OpenKruise's lifecycle hooks). */
export function isHooked(pod: V1Pod, hook: Hook | undefined): boolean {
  if (!hook) return false;
  const { labels, finalizers } = hookEntries(hook);
  const l = podLabels(pod);
  const f = pod.metadata?.finalizers ?? [];
  return labels.some(([k, v]) => l[k] === v) || finalizers.some((x) => f.includes(x));
}

/** all-hooked: the pod carries all of them (OpenKruise's lifecycle hooks). A nil hook is never all-hooked. */
export function isAllHooked(pod: V1Pod, hook: Hook | undefined): boolean {
  if (!hook) return false;
  const { labels, finalizers } = hookEntries(hook);
  const l = podLabels(pod);
  const f = pod.metadata?.finalizers ?? [];
  return labels.every(([k, v]) => l[k] === v) && finalizers.every((x) => f.includes(x));
}

/** A lifecycle-state patch with its timestamp annotation. */
export function statePatch(pod: V1Pod, to: string, nowMs: number, extra: Partial<PatchPodAction> = {}): PatchPodAction {
  return {
    kind: 'patchPod',
    name: podName(pod),
    reason: 'Lifecycle',
    ...extra,
    labels: { ...(extra.labels ?? {}), [LIFECYCLE_STATE_LABEL]: to },
    annotations: { ...(extra.annotations ?? {}), [LIFECYCLE_TIMESTAMP_ANNOTATION]: rfc3339(nowMs) },
    lifecycle: { from: lifecycleState(pod), to },
  };
}

export function hasReadinessGate(pod: V1Pod, type: string): boolean {
  return someIn(pod.spec?.readinessGates, (g) => g.conditionType === type);
}

interface NotReadyEntry {
  userAgent: string;
  key: string;
}

function notReadyEntries(pod: V1Pod): NotReadyEntry[] {
  const msg = getCondition(pod, KRUISE_POD_READY)?.message;
  if (!msg) return [];
  try {
    const parsed: unknown = JSON.parse(msg);
    return Array.isArray(parsed) ? (parsed as NotReadyEntry[]).filter((e) => typeof e?.key === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The KruisePodReady condition after adding or removing a Lifecycle not-ready key
 * (OpenKruise's lifecycle state machine). Undefined when nothing changes or the pod lacks the gate.
 */
export function kruisePodReadyChange(
  pod: V1Pod,
  change: { add?: string; remove?: string },
): PodConditionPatch | undefined {
  if (!hasReadinessGate(pod, KRUISE_POD_READY)) return undefined;
  const before = notReadyEntries(pod);
  let after = before;
  if (change.remove !== undefined) after = after.filter((e) => !(e.userAgent === 'Lifecycle' && e.key === change.remove));
  if (change.add !== undefined && !after.some((e) => e.userAgent === 'Lifecycle' && e.key === change.add)) {
    after = [...after, { userAgent: 'Lifecycle', key: change.add }];
  }
  const status = after.length === 0 ? 'True' : 'False';
  const current = getCondition(pod, KRUISE_POD_READY);
  if (current?.status === status && after.length === before.length) return undefined;
  return after.length === 0
    ? { type: KRUISE_POD_READY, status: 'True' }
    : { type: KRUISE_POD_READY, status: 'False', message: JSON.stringify(after) };
}
