// The stand-in that makes the CloneSet's specified pod writes (./spec-pod-writes.ts) on a
// Deployment's pods: a controller on the namespace's pods, run in the bench's controller child
// instead of the CloneSet controller, so it has an event loop and a client of its own as the
// CloneSet controller has.
import { done, strategicMergePatch, type Controller, type KubeObject, type Manager } from '@cloneset-suite/kube-runtime';
import { podResource } from './kube.ts';
import type { Pod } from './pods.ts';
import { specPodWrites, type SpecPodWriteKind } from './spec-pod-writes.ts';

export function createSpecPodWriter(manager: Manager, namespace: string): Controller {
  const pods = manager.informers.informerFor<KubeObject>(podResource, { namespace });
  const client = manager.client.resource<KubeObject>(podResource);
  return (
    manager
      // Writes in flight at once: as many as the CloneSet controller's executor keeps (what its client sends at once).
      .controller('spec-pod-writer', { maxConcurrentReconciles: manager.client.maxConcurrentRequests })
      .for(pods)
      .complete(() => {
        // By pod: its uid and the kinds written, which the cache may not show yet (a second write would be one the CloneSet never makes).
        const written = new Map<string, { uid: string; kinds: Set<SpecPodWriteKind> }>();
        return {
          reconcile: async (cached, ctx) => {
            const key = ctx.key;
            const pod: Pod = cached;
            const uid = pod.metadata?.uid;
            if (!uid) return done();
            const seen = written.get(key);
            const kinds = seen?.uid === uid ? seen.kinds : new Set<SpecPodWriteKind>();
            written.set(key, { uid, kinds });
            for (const w of specPodWrites(pod, kinds, new Date(manager.clock.now()).toISOString())) {
              const patch = strategicMergePatch(w.body);
              if (w.subresource === 'status') await client.patchStatus(namespace, ctx.name, patch, { signal: ctx.signal });
              else await client.patch(namespace, ctx.name, patch, { signal: ctx.signal });
              kinds.add(w.kind);
            }
            return done();
          },
          forget: (key) => written.delete(key),
        };
      })
  );
}
