// The resources the PodTransitionRule controller reads and writes.
import { PODTRANSITIONRULE_GVK, type PodTransitionRule } from '@cloneset-suite/api-types';
import { Resources, type GroupVersionResource, type KubeObject } from '@cloneset-suite/kube-runtime';

export const podTransitionRuleResource = {
  group: PODTRANSITIONRULE_GVK.group,
  version: PODTRANSITIONRULE_GVK.version,
  resource: PODTRANSITIONRULE_GVK.plural,
  kind: PODTRANSITIONRULE_GVK.kind,
  namespaced: true,
} as const satisfies GroupVersionResource;

export const podResource = Resources.pods;

/** A PodTransitionRule as the API serves it (timestamps as strings). */
export type PodTransitionRuleObject = Omit<PodTransitionRule, 'metadata'> & KubeObject;
