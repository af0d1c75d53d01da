// The resources the CloneSet controller reads and writes, and how their events map to owners.
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { Resources, namespacedKey, type DeepReadonly, type GroupVersionResource, type KubeObject } from '@cloneset-suite/kube-runtime';

export const cloneSetResource = {
  group: CLONESET_GVK.group,
  version: CLONESET_GVK.version,
  resource: CLONESET_GVK.plural,
  kind: CLONESET_GVK.kind,
  namespaced: true,
} as const satisfies GroupVersionResource;

export const podResource = Resources.pods;
export const pvcResource = Resources.persistentVolumeClaims;
export const revisionResource = Resources.controllerRevisions;
export const nodeResource = Resources.nodes;

/** The CloneSet key of an object whose controller ownerReference is a CloneSet. */
export function owningCloneSetKey(obj: DeepReadonly<KubeObject>): string | undefined {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (!ref || ref.kind !== CLONESET_GVK.kind || ref.apiVersion.split('/')[0] !== CLONESET_GVK.group) return undefined;
  return namespacedKey(obj.metadata?.namespace, ref.name);
}
