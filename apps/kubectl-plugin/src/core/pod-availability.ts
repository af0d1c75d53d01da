// Why the CloneSet controller counts a pod as unavailable (against maxUnavailable, and out of
// status.availableReplicas), in words: the same tests in the same order as its "available"
// (OpenKruise's: Running, Ready, InPlaceUpdateReady not False, Ready for longer than
// minReadySeconds, lifecycle state Normal; ours on top for PodOpsLifecycle-controlled pods:
// service-available and in no operation). A test checks the count against the planner's.
import { KRUISE_LABELS, KRUISE_READINESS_GATES, LIFECYCLE_STATES, POL_LABELS, isKusionControlled } from '@cloneset-suite/api-types';
import { phaseOf, readLifecycle, typeOf } from '@cloneset-suite/podopslifecycle';
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';

export interface Unavailability {
  reason: string;
  /** Set when only minReadySeconds keeps the pod unavailable: how long until it counts. */
  availableInMs?: number;
}

const conditionOf = (pod: V1Pod, type: string): V1PodCondition | undefined => pod.status?.conditions?.find((c) => c.type === type);

function millis(t: Date | string | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = new Date(t).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/** `cloneset/update (PreCheck)` for each PodOpsLifecycle operation the pod is in. */
export function operationsOf(pod: V1Pod): string[] {
  const view = readLifecycle(pod.metadata?.labels);
  return view.ids.map((id) => {
    const labels = view.labelsById.get(id) ?? {};
    return `${id}/${typeOf(labels) ?? '?'} (${phaseOf(labels) ?? 'PreCheck'})`;
  });
}

/** Undefined when the pod is available; otherwise the first reason it is not. */
export function unavailability(pod: V1Pod, minReadySeconds: number, nowMs: number): Unavailability | undefined {
  const phase = pod.status?.phase;
  if (phase !== 'Running') return { reason: `phase ${phase ?? 'unknown'}` };
  const ready = conditionOf(pod, 'Ready');
  if (ready?.status !== 'True') return { reason: 'not Ready' };
  const inPlace = conditionOf(pod, KRUISE_READINESS_GATES.inPlaceUpdateReady);
  if (inPlace && inPlace.status !== 'True') return { reason: `${KRUISE_READINESS_GATES.inPlaceUpdateReady} ${inPlace.status} (in-place update under way)` };
  if (minReadySeconds > 0) {
    const since = millis(ready.lastTransitionTime);
    if (since === undefined) return { reason: `Ready, since an unknown time (minReadySeconds ${minReadySeconds})` };
    const availableAt = since + minReadySeconds * 1000;
    if (availableAt >= nowMs) {
      const readyFor = Math.max(0, Math.floor((nowMs - since) / 1000));
      // Available once strictly past the mark: one millisecond after it.
      return { reason: `Ready for ${readyFor}s of minReadySeconds ${minReadySeconds}`, availableInMs: availableAt - nowMs + 1 };
    }
  }
  const state = pod.metadata?.labels?.[KRUISE_LABELS.lifecycleState] ?? '';
  if (state !== '' && state !== LIFECYCLE_STATES.normal) return { reason: `lifecycle state ${state}` };
  if (isKusionControlled(pod.metadata?.labels)) {
    const operations = operationsOf(pod);
    if (operations.length > 0) return { reason: `in PodOpsLifecycle operation ${operations.join(', ')}` };
    if (pod.metadata?.labels?.[POL_LABELS.serviceAvailable] === undefined) return { reason: `PodOpsLifecycle: not ${POL_LABELS.serviceAvailable} yet` };
  }
  return undefined;
}
