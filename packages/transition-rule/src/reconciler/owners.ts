// The OwnerLookup port answered from the shared CloneSet cache: the live CloneSet a pod's
// controller reference names (any apps.kruise.io version: they are one object), with its UID and
// spec.replicas (unset means 1). Other owner kinds are not read: CollaSet's CRD is not part of
// this suite, so its pods count no missing replicas. A CloneSet whose replicas change wakes the
// availablePolicy rules of its namespace, since no pod event may follow (a scale-in to the pods
// already there).
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { namespacedKey, type EventSource, type CachedSource } from '@cloneset-suite/kube-runtime';
import type { OwnerLookup } from '../core/types.ts';
import { filteredUpdates } from './filtered-updates.ts';
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

/** CloneSet adds, deletes, and updates that change spec.replicas (or the UID). */
export function replicaChanges(source: Pick<CachedSource<CloneSetObject>, 'addEventHandler' | 'hasSynced'>): EventSource<CloneSetObject> {
  return filteredUpdates(source, (a, b) => a.spec?.replicas !== b.spec?.replicas || a.metadata?.uid !== b.metadata?.uid);
}
