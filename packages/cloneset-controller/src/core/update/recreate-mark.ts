// The recreate mark of an update (OpenKruise's recreate update): the label apps.kruise.io/specified-delete, after which
// the Scale step deletes the pod as a specified delete (this pass's second look,
// recreate-deletes.ts, or the next pass's) and creates its replacement at the update revision.
// Controlled pods get it only once PodOpsLifecycle granted an update announced as deleting them.
import type { V1Pod } from '@kubernetes/client-node';
import { SPECIFIED_DELETE_LABEL } from '../keys.ts';
import { throughLifecycle, type Gated } from '../lifecycle/ops-lifecycle.ts';
import type { OutcomeEvent } from '../plan.ts';
import { podLabels, podName } from '../pods/pod-state.ts';

/**
 * The actions that re-create `pod` at `revision`, or none when it is marked already; what the
 * lifecycle makes it wait for. `why`: a Warning said with the mark, when the pod is re-created
 * instead of updated in place.
 */
export function recreateMark(pod: V1Pod, revision: string, why?: OutcomeEvent): Gated {
  if (Object.hasOwn(podLabels(pod), SPECIFIED_DELETE_LABEL)) return { actions: [], waits: [] };
  const what = `pod ${podName(pod)} specified-delete for update(revision ${revision})`;
  return throughLifecycle(pod, 'recreate', [
    ...(why ? [{ kind: 'event' as const, ...why }] : []),
    {
      kind: 'patchPod',
      name: podName(pod),
      reason: 'RecreateUpdate',
      labels: { [SPECIFIED_DELETE_LABEL]: 'true' },
      outcome: {
        success: { type: 'Normal', reason: 'SuccessfulUpdatePodReCreate', message: `successfully patch ${what}` },
        failure: { type: 'Warning', reason: 'FailedUpdatePodReCreate', message: `failed to patch ${what}` },
      },
    },
  ]);
}
