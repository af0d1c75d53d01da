// The resources the PodTransitionRule controller reads and writes.
import { CLONESET_GVK, PODTRANSITIONRULE_GVK, type PodTransitionRule } from '@cloneset-suite/api-types';
import { Resources, type GroupVersionResource, type KubeObject } from '@cloneset-suite/kube-runtime';

/** The namespaced resource of an api-types kind. */
function namespacedResource(gvk: { group: string; version: string; plural: string; kind: string }): GroupVersionResource {
  return { group: gvk.group, version: gvk.version, resource: gvk.plural, kind: gvk.kind, namespaced: true };
}

export const podTransitionRuleResource = namespacedResource(PODTRANSITIONRULE_GVK);

/** The pods' owners, for availablePolicy's missing replicas (owners.ts). */
export const cloneSetResource = namespacedResource(CLONESET_GVK);

export const podResource = Resources.pods;

/** A PodTransitionRule as the API serves it (timestamps as strings). */
export type PodTransitionRuleObject = Omit<PodTransitionRule, 'metadata'> & KubeObject;

/** A CloneSet as the controller reads it: identity and spec.replicas. */
export type CloneSetObject = KubeObject & { spec?: { replicas?: number } };
