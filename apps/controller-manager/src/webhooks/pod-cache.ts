// The PodCache the CloneSet validating webhook reads: the manager's shared pod informer (started
// on every replica, standbys included), so a podsToDelete entry costs a map lookup, not a GET.
import type { PodLookup } from '@cloneset-suite/api-types';
import type { KubeObject, CachedSource } from '@cloneset-suite/kube-runtime';
import type { PodCache } from './types.ts';

type CachedPod = KubeObject & { metadata?: KubeObject['metadata'] & { deletionTimestamp?: string } };

export function podCacheFromInformer(informer: CachedSource<CachedPod>): PodCache {
  return {
    hasSynced: () => informer.hasSynced(),
    get(namespace, name): PodLookup | undefined {
      const meta = informer.get(namespace, name)?.metadata;
      if (!meta) return undefined;
      return {
        ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}),
        ownerReferences: (meta.ownerReferences ?? []).map((r) => ({ uid: r.uid, controller: r.controller })),
      };
    },
  };
}

/** For rendering webhook configurations, where no handler runs. */
export const NO_POD_CACHE: PodCache = {
  hasSynced: () => false,
  get: () => undefined,
};
