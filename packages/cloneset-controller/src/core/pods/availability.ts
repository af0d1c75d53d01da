// Why the controller counts a pod as unavailable, in words: the first question of the one
// availability chain (unavailability, pod-state.ts) the pod fails, as the waits that name
// unavailable pods say it and kubectl-cloneset shows it.
import { POL_LABELS } from '@cloneset-suite/api-types';
import { INPLACE_UPDATE_READY } from '../keys.ts';
import type { Unavailability } from '../wait.ts';

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
