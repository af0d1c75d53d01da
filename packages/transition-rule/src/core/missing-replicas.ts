// Replicas the pods' owners want but do not have yet (Kuperator PR #362): a
// CloneSet re-creating a pod, or scaling out, has fewer pods than spec.replicas, and those missing
// pods are unavailable too. availablePolicy subtracts them from its quota, so 9 of 10 replicas
// present under maxUnavailable 1 approves nobody.
//
// Unlike Kuperator, which counts only the pods the rule selects, the owner's pods are counted in
// the whole namespace: a rule selecting part of a CloneSet's pods is not blocked forever by the
// part it does not select.
import { podName } from './stage.ts';
import type { OwnerLookup, OwnerReference, PodView } from './types.ts';

function controllerOf(pod: PodView): OwnerReference | undefined {
  return pod.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/**
 * Σ over the distinct controllers of `selected` whose live object has the same UID of
 * max(0, replicas − its pods in `namespacePods`).
 */
export function missingReplicas(namespace: string, selected: readonly PodView[], namespacePods: readonly PodView[], lookup: OwnerLookup): number {
  const owners = new Map<string, OwnerReference>();
  for (const pod of selected) {
    const ref = controllerOf(pod);
    if (ref?.uid) owners.set(ref.uid, ref);
  }
  if (owners.size === 0) return 0;
  const present = new Map<string, Set<string>>();
  for (const pod of namespacePods) {
    const uid = controllerOf(pod)?.uid;
    if (uid === undefined || !owners.has(uid)) continue;
    let names = present.get(uid);
    if (!names) present.set(uid, (names = new Set()));
    names.add(podName(pod));
  }
  let missing = 0;
  for (const [uid, ref] of owners) {
    const live = lookup(namespace, ref);
    // A pod whose owner was deleted and re-created under the same name is not that owner's.
    if (live === undefined || live.uid !== uid) continue;
    missing += Math.max(0, live.replicas - (present.get(uid)?.size ?? 0));
  }
  return missing;
}
