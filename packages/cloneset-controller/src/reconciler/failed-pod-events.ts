// The PodFailed Event (core/pods/failed-pod.ts), said on the CloneSet when one of its pods turns
// Failed. Declared with reactsTo(), so only the leader says it: standbys run the caches too.
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { controllerOwnerKey, type EventRecorder, type KubeObject, type ResourceEventHandler, type CachedSource } from '@cloneset-suite/kube-runtime';
import type { V1Pod } from '@kubernetes/client-node';
import { failedPodEvent } from '../core/pods/failed-pod.ts';
import type { CloneSetObject } from './caches.ts';

export function failedPodEvents(cloneSets: CachedSource<CloneSetObject>, recorder: EventRecorder): ResourceEventHandler<KubeObject> {
  return {
    onUpdate: (old, pod) => {
      const key = controllerOwnerKey(pod, CLONESET_GVK);
      const failed = key ? failedPodEvent(old as V1Pod, pod as V1Pod) : undefined;
      const owner = failed && key ? (cloneSets.getByKey(key) as CloneSetObject | undefined) : undefined;
      if (failed && owner) recorder.event(owner, failed.type, failed.reason, 'Replace', failed.message, pod);
    },
  };
}
