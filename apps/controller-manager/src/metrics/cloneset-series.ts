// What one CloneSet's status says about its rollout, as gauge values (pure: read at scrape time),
// and which CloneSet's series a pod event counts in.
import type { CloneSet } from '@cloneset-suite/api-types';
import type { DeepReadonly, KubeObject } from '@cloneset-suite/kube-runtime';

export const REPLICA_STATES = ['desired', 'current', 'updated', 'ready', 'available', 'unavailable', 'updated_ready'] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

type CloneSetLike = Pick<CloneSet, 'spec' | 'status'>;

/** Replicas per state; unavailable is desired minus available (never negative), as kubectl shows it. */
export function replicasByState(cs: CloneSetLike): Record<ReplicaState, number> {
  const s = cs.status;
  const desired = cs.spec?.replicas ?? 1;
  const available = s?.availableReplicas ?? 0;
  return {
    desired,
    current: s?.replicas ?? 0,
    updated: s?.updatedReplicas ?? 0,
    ready: s?.readyReplicas ?? 0,
    available,
    unavailable: Math.max(0, desired - available),
    updated_ready: s?.updatedReadyReplicas ?? 0,
  };
}

/** Whether the Progressing condition says the rollout missed its progressDeadlineSeconds. */
export function progressDeadlineExceeded(cs: CloneSetLike): boolean {
  const c = cs.status?.conditions?.find((x) => x.type === 'Progressing');
  return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded';
}

export interface CloneSetSeries {
  namespace: string;
  cloneset: string;
}

/**
 * The CloneSet series a pod's add or delete counts in: its controlling CloneSet's, and only while
 * that CloneSet, with the uid the pod's ownerReference names, is in the cache. Otherwise a pod
 * deleted after its CloneSet (garbage collection comes later) brings back the series the
 * CloneSet's delete removed, and anyone who may create pods mints series for CloneSets that do
 * not exist (an ownerReference is whatever the pod's author wrote).
 */
export function cloneSetSeriesOf(pod: DeepReadonly<KubeObject>, cachedUid: (namespace: string, name: string) => string | undefined): CloneSetSeries | undefined {
  const ref = pod.metadata?.ownerReferences?.find((r) => r.controller && r.kind === 'CloneSet' && r.apiVersion.startsWith('apps.kruise.io/'));
  if (!ref) return undefined;
  const namespace = pod.metadata?.namespace ?? '';
  const uid = cachedUid(namespace, ref.name);
  return uid !== undefined && uid === ref.uid ? { namespace, cloneset: ref.name } : undefined;
}
