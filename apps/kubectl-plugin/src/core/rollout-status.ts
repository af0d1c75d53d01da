// The line `rollout status` prints for a CloneSet, worded as kubectl's for a Deployment (and its
// partitioned StatefulSet lines when a partition holds pods back), and whether the rollout is
// done or can no longer progress.
import type { CloneSet } from '@cloneset-suite/api-types';
import { expectedUpdatedReplicas, type ReconcileInput } from '@cloneset-suite/cloneset-controller';

export type RolloutState =
  | { kind: 'waiting'; message: string }
  | { kind: 'done'; message: string }
  | { kind: 'failed'; message: string };

/** Pods the rollout should bring to the update revision: the status's own count, else the controller's (replicas minus a valid partition). */
function expectedUpdated(cs: CloneSet): number {
  return cs.status?.expectedUpdatedReplicas ?? expectedUpdatedReplicas(cs as unknown as ReconcileInput['cs']);
}

export function rolloutState(cs: CloneSet): RolloutState {
  const name = cs.metadata?.name ?? '';
  const status = cs.status;
  if (!status || (status.observedGeneration ?? 0) < (cs.metadata?.generation ?? 0)) {
    return { kind: 'waiting', message: 'Waiting for clone spec update to be observed...' };
  }
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return {
      kind: 'failed',
      message: `clone "${name}" exceeded its progress deadline (condition Progressing=False, reason ProgressDeadlineExceeded: ${progressing.message ?? ''})`,
    };
  }
  const replicas = cs.spec.replicas ?? 1;
  const expected = expectedUpdated(cs);
  const partitioned = expected < replicas;
  const updated = status.updatedReplicas;
  if (updated < expected) {
    return partitioned
      ? { kind: 'waiting', message: `Waiting for partitioned roll out to finish: ${updated} out of ${expected} new pods have been updated...` }
      : { kind: 'waiting', message: `Waiting for clone "${name}" rollout to finish: ${updated} out of ${replicas} new replicas have been updated...` };
  }
  const pendingTermination = status.replicas - (partitioned ? replicas : updated);
  if (pendingTermination > 0) {
    return { kind: 'waiting', message: `Waiting for clone "${name}" rollout to finish: ${pendingTermination} old replicas are pending termination...` };
  }
  const updatedAvailable = status.updatedAvailableReplicas ?? status.updatedReadyReplicas;
  if (updatedAvailable < expected) {
    return { kind: 'waiting', message: `Waiting for clone "${name}" rollout to finish: ${updatedAvailable} of ${expected} updated replicas are available...` };
  }
  return partitioned
    ? { kind: 'done', message: `partitioned roll out complete: ${updated} new pods have been updated...` }
    : { kind: 'done', message: `clone "${name}" successfully rolled out` };
}
