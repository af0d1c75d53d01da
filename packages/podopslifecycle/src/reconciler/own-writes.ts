// The resourceVersions of a controller's own pod writes, kept current from the pod informer, so a
// reconcile never plans from a cache that has not seen them yet (§1.6 step 1). `onGone` lets the
// controller forget its own per-pod memory when a pod leaves the cache.
import { ResourceVersionExpectations, namespacedKey, type Clock, type DeepReadonly, type KubeObject, type SharedIndexInformer } from '@cloneset-suite/kube-runtime';

export const podKey = (pod: DeepReadonly<KubeObject>): string => namespacedKey(pod.metadata?.namespace, pod.metadata?.name ?? '');

export function trackOwnPodWrites(pods: SharedIndexInformer<KubeObject>, clock: Clock, onGone: (key: string) => void): ResourceVersionExpectations {
  const versions = new ResourceVersionExpectations({ clock });
  pods.addEventHandler({
    onAdd: (pod) => versions.observe(podKey(pod), pod.metadata?.resourceVersion),
    onUpdate: (_old, pod) => versions.observe(podKey(pod), pod.metadata?.resourceVersion),
    onDelete: (pod) => {
      versions.delete(podKey(pod));
      onGone(podKey(pod));
    },
  });
  return versions;
}
