// The resources the CloneSet controller reads and writes.
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { Resources, type GroupVersionResource } from '@cloneset-suite/kube-runtime';

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
