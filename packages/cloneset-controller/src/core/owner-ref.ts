// The controller reference an owned object carries: a CloneSet's on its pods, PVCs,
// revisions and jobs; a pod's on the PVC handed to it under disablePVCReuse (OpenKruise's PVC handling).
import type { V1OwnerReference } from '@kubernetes/client-node';
import { CLONESET_API_VERSION, CLONESET_KIND } from './keys.ts';

interface Owner {
  apiVersion?: string;
  metadata?: { name?: string; uid?: string };
}

const CLONESET_TYPE = { apiVersion: CLONESET_API_VERSION, kind: CLONESET_KIND };
export const POD_TYPE = { apiVersion: 'v1', kind: 'Pod' };

/** A controller reference to `owner`, a CloneSet unless `type` says otherwise. */
export function ownerRefTo(
  owner: Owner,
  type: { apiVersion: string; kind: string } = CLONESET_TYPE,
): V1OwnerReference & { controller: true; blockOwnerDeletion: true } {
  return {
    apiVersion: owner.apiVersion ?? type.apiVersion,
    kind: type.kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}
