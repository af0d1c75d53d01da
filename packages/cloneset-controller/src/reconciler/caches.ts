// What the CloneSet controller caches of each resource beyond its namespace scope. Every replica
// holds these caches whole, so each is as narrow as the planner's reads allow, and no narrower:
// - PVCs: only those labelled with an instance id. The planner reads a CloneSet's PVCs by that
//   label alone (reuse, clean-up, deletion with their pod; OpenKruise labels its PVCs the same
//   way); the only other read is "does a claim of this name exist" before creating one, and a
//   create that meets an unlabelled claim answers AlreadyExists, which is ignored as before.
// - Nodes: their labels (topology spread of scale-in) and allocatable cpu and memory (an in-place
//   resize must fit them) only; a node's status lists every image it holds and can run to tens of
//   KiB.
// Not narrowed, and why:
// - Pods: the pod cache is shared with the lifecycle, traffic and transition-rule controllers
//   (pods labelled kusionstack.io/control, owned by anything), and the CloneSet itself reads any
//   pod of its namespace by name (a released or foreign pod holding a name it would create,
//   which it waits for instead of spamming AlreadyExists; the podsToDelete webhook); a label selector would hide those.
// - ControllerRevisions: a CloneSet's revisions carry its template's labels and the
//   controller.kubernetes.io/hash label that StatefulSet and DaemonSet revisions carry too, so no
//   selector tells them apart; they are few (history limit) per workload anyway.
import { keepIdentityAndLabels, type DeepReadonly, type InformerFactory, type InformerScope, type KubeObject } from '@cloneset-suite/kube-runtime';
import { INSTANCE_ID_LABEL } from '../core/keys.ts';
import { RESIZABLE } from '../core/update/resize.ts';
import type { CloneSetLike } from '../core/types.ts';
import { cloneSetResource, nodeResource, podResource, pvcResource, revisionResource } from './resources.ts';

export type CloneSetObject = CloneSetLike & KubeObject;

export const pvcCacheScope: InformerScope<KubeObject> = { labelSelector: INSTANCE_ID_LABEL };

function keepLabelsAndAllocatable(node: KubeObject): KubeObject {
  const allocatable = (node as { status?: { allocatable?: Record<string, string> } }).status?.allocatable ?? {};
  const kept = Object.fromEntries(Object.entries(allocatable).filter(([k]) => (RESIZABLE as readonly string[]).includes(k)));
  const slim = keepIdentityAndLabels(node);
  return Object.keys(kept).length > 0 ? ({ ...slim, status: { allocatable: kept } } as KubeObject) : slim;
}

export const nodeCacheScope: InformerScope<KubeObject> = { transform: keepLabelsAndAllocatable };

/** The allocatable cpu and memory the node cache holds of a node. */
export function cachedAllocatable(node: KubeObject | DeepReadonly<KubeObject> | undefined): Readonly<Record<string, string>> | undefined {
  return (node as { status?: { allocatable?: Record<string, string> } } | undefined)?.status?.allocatable;
}

/** The shared caches the CloneSet controller reads, in the watched namespace (all when undefined). */
export function cloneSetCaches(informers: InformerFactory, namespace: string | undefined) {
  return {
    cloneSets: informers.informerFor<CloneSetObject>(cloneSetResource, { namespace }),
    pods: informers.informerFor<KubeObject>(podResource, { namespace }),
    pvcs: informers.informerFor<KubeObject>(pvcResource, { namespace, ...pvcCacheScope }),
    revisions: informers.informerFor<KubeObject>(revisionResource, { namespace }),
    nodes: informers.informerFor<KubeObject>(nodeResource, nodeCacheScope),
  };
}

export type CloneSetCaches = ReturnType<typeof cloneSetCaches>;
