// A restart restarts (README, "A restart restarts"): `kubectl rollout restart` stamps the pod
// template with kubectl.kubernetes.io/restartedAt, and users expect every pod to restart. A
// metadata change is otherwise made in place, which restarts nothing (OpenKruise does so), so a
// change of the stamp is never made in place: each pod is re-created as a ReCreate update would
// re-create it, whatever else the template change carries and whatever the update strategy
// (InPlaceOnly included: the user asked for the restart). OnDelete keeps its contract: pods move
// when someone deletes them.
import { KUBECTL_RESTARTED_AT_ANNOTATION } from '@cloneset-suite/api-types';
import type { V1PodTemplateSpec } from '@kubernetes/client-node';

/** Whether going from one template to the other sets, changes or removes the restart stamp. */
export function restartsPods(from: V1PodTemplateSpec, to: V1PodTemplateSpec): boolean {
  return from.metadata?.annotations?.[KUBECTL_RESTARTED_AT_ANNOTATION] !== to.metadata?.annotations?.[KUBECTL_RESTARTED_AT_ANNOTATION];
}
