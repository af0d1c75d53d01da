// A pod of the CloneSet that turns Failed (kruise #2481). It is no longer active (OpenKruise's pod predicates), so the
// pass this change triggers creates a pod in its place, as OpenKruise v1.9 does since it stopped
// ignoring that update; the Failed pod itself is left for the user (or the pod garbage collector)
// to inspect, as OpenKruise and the ReplicaSet controller leave it. We also say so in an Event,
// which OpenKruise does not: the CloneSet suddenly has one pod more than its replicas.
import type { V1Pod } from '@kubernetes/client-node';
import { podName } from './pod-state.ts';

export const POD_FAILED_REASON = 'PodFailed';

export interface FailedPodEvent {
  type: 'Warning';
  reason: typeof POD_FAILED_REASON;
  message: string;
}

/** The Event for a pod update, when that update is the pod entering phase Failed. */
export function failedPodEvent(before: V1Pod, after: V1Pod): FailedPodEvent | undefined {
  if (before.status?.phase === 'Failed' || after.status?.phase !== 'Failed') return undefined;
  const why = [after.status.reason, after.status.message].filter((s) => !!s).join(': ');
  return {
    type: 'Warning',
    reason: POD_FAILED_REASON,
    message: `pod ${podName(after)} entered phase Failed${why ? ` (${why})` : ''}: it no longer counts as a replica and a new pod takes its place; the failed pod is kept for inspection`,
  };
}
