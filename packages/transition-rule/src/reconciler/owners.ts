// The OwnerLookup port answered from the shared CloneSet cache: the live CloneSet a pod's
// controller reference names (any apps.kruise.io version: they are one object), with its UID and
// spec.replicas (unset means 1). Other owner kinds are not read: CollaSet's CRD is not part of
// this suite, so its pods count no missing replicas. A CloneSet whose replicas change wakes the
// availablePolicy rules of its namespace, since no pod event may follow (a scale-in to the pods
// already there).
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { namespacedKey, type CachedSource, type DeepReadonly } from '@cloneset-suite/kube-runtime';
import type { OwnerLookup } from '../core/types.ts';
import type { CloneSetObject } from './resources.ts';

export function ownersFromCloneSets(cloneSets: Pick<CachedSource<CloneSetObject>, 'getByKey'>): OwnerLookup {
  return (namespace, ref) => {
    if (ref.kind !== CLONESET_GVK.kind || !ref.apiVersion.startsWith(`${CLONESET_GVK.group}/`)) return undefined;
    const cs = cloneSets.getByKey(namespacedKey(namespace, ref.name));
    const uid = cs?.metadata?.uid;
    if (!uid) return undefined;
    return { uid, replicas: cs.spec?.replicas ?? 1 };
  };
}

/** The CloneSet updates that wake rules (the watch's update predicate): a change of spec.replicas, or of the UID. */
export function replicasChanged(before: DeepReadonly<CloneSetObject>, after: DeepReadonly<CloneSetObject>): boolean {
  return before.spec?.replicas !== after.spec?.replicas || before.metadata?.uid !== after.metadata?.uid;
}
