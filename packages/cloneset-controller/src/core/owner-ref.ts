// The controller reference every object a CloneSet owns carries (pods, PVCs, revisions, jobs).
import type { V1OwnerReference } from '@kubernetes/client-node';
import { CLONESET_API_VERSION, CLONESET_KIND } from './keys.ts';
import type { CloneSetLike } from './types.ts';

export function ownerRefTo(cs: CloneSetLike): V1OwnerReference & { controller: true; blockOwnerDeletion: true } {
  return {
    apiVersion: cs.apiVersion ?? CLONESET_API_VERSION,
    kind: CLONESET_KIND,
    name: cs.metadata.name ?? '',
    uid: cs.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
