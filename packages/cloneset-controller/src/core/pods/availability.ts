// Why the controller counts a pod as unavailable (against maxUnavailable, and out of
// status.availableReplicas): the questions isAvailable asks (pod-state.ts), in the same order,
// answered with the first that fails. The waits that name unavailable pods say this, and
// kubectl-cloneset shows it; a property test keeps it the same as isAvailable.
import type { V1Pod } from '@kubernetes/client-node';
import { POL_LABELS } from '@cloneset-suite/api-types';
import { phaseOf, readLifecycle, typeOf } from '@cloneset-suite/podopslifecycle/protocol';
import { INPLACE_UPDATE_READY, LifecycleState } from '../keys.ts';
import { getCondition, isControlled, lifecycleState, podLabels, readinessOf } from './pod-state.ts';
import type { Unavailability } from '../wait.ts';

/** `cloneset/update (PreCheck)` for each PodOpsLifecycle operation the labels put the pod in. */
function operationsOf(labels: Readonly<Record<string, string>>): string[] {
  const view = readLifecycle(labels);
  return view.ids.map((id) => {
    const idLabels = view.labelsById.get(id) ?? {};
    return `${id}/${typeOf(idLabels) ?? '?'} (${phaseOf(idLabels) ?? 'PreCheck'})`;
  });
}

/** Undefined when the pod is available; otherwise the first reason it is not. */
export function unavailability(pod: V1Pod, minReadySeconds: number, nowMs: number): Unavailability | undefined {
  const r = readinessOf(pod);
  if (!r.running) return { cause: 'phase', phase: pod.status?.phase, scheduled: !!pod.spec?.nodeName };
  if (!r.ready) return { cause: 'notReady' };
  if (!r.inPlaceUpdateReady) return { cause: 'inPlaceUpdate', status: getCondition(pod, INPLACE_UPDATE_READY)?.status ?? '' };
  if (minReadySeconds > 0) {
    const since = r.readySinceMs;
    if (since === undefined) return { cause: 'minReadySeconds', minReadySeconds };
    const availableAt = since + minReadySeconds * 1000;
    if (availableAt >= nowMs) return { cause: 'minReadySeconds', minReadySeconds, readyForSeconds: Math.max(0, Math.floor((nowMs - since) / 1000)), availableInMs: availableAt - nowMs + 1 };
  }
  const state = lifecycleState(pod);
  if (state !== '' && state !== LifecycleState.Normal) return { cause: 'lifecycleState', state };
  if (isControlled(pod)) {
    const labels = podLabels(pod);
    const operations = operationsOf(labels);
    if (operations.length > 0) return { cause: 'podOpsOperation', operations };
    if (labels[POL_LABELS.serviceAvailable] === undefined) return { cause: 'notServiceAvailable' };
  }
  return undefined;
}

/** The reason in words, as a wait or `kubectl cloneset` says it. */
export function unavailabilityText(u: Unavailability): string {
  switch (u.cause) {
    case 'phase':
      return u.phase === 'Pending' && !u.scheduled ? 'phase Pending, not scheduled yet' : `phase ${u.phase ?? 'unknown'}`;
    case 'notReady':
      return 'not Ready';
    case 'inPlaceUpdate':
      return `${INPLACE_UPDATE_READY} ${u.status} (in-place update under way)`;
    case 'minReadySeconds':
      return u.readyForSeconds === undefined
        ? `Ready, since an unknown time (minReadySeconds ${u.minReadySeconds})`
        : `Ready for ${u.readyForSeconds}s of minReadySeconds ${u.minReadySeconds}`;
    case 'lifecycleState':
      return `lifecycle state ${u.state}`;
    case 'podOpsOperation':
      return `in PodOpsLifecycle operation ${u.operations.join(', ')}`;
    case 'notServiceAvailable':
      return `PodOpsLifecycle: not ${POL_LABELS.serviceAvailable} yet`;
  }
}
