// The CloneSet controller, declared: what it reconciles, owns, watches and waits for, and the pass
// (./reconcile.ts) built from what the declaration hands it.
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { namespacedKey, type Controller, type DeepReadonly, type GroupVersionResource, type KubeObject, type Manager } from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../core/keys.ts';
import { selectorMatches } from '../core/selector.ts';
import type { CloneSetLike } from '../core/types.ts';
import { claimExpectation } from './actions/claim-expectation.ts';
import { cloneSetCaches } from './caches.ts';
import { podResource, pvcResource } from './resources.ts';
import { failedPodEvents } from './failed-pod-events.ts';
import { ImagePullJobSupport } from './image-pull-jobs.ts';
import { cloneSetReconciler } from './reconcile.ts';
import { ShardHandover } from './shard-handover.ts';

export const CLONESET_CONTROLLER_NAME = 'cloneset';

export interface CloneSetControllerOptions {
  /** Watch one namespace; all when undefined. */
  namespace?: string;
  maxConcurrentReconciles?: number;
  featureGates?: FeatureGates;
  /** How long an unobserved create/delete blocks the CloneSet (it then expires, is counted in a metric and the CloneSet is requeued: never left unreconciled). */
  expectationTimeoutMs?: number;
  /** Identity for Events' reportingInstance. */
  instance?: string;
  random?: () => number;
  /** How long a Deferred in-place resize may wait before its pod is re-created (default 5 min). */
  resizeDeferredTimeoutMs?: number;
}

export function createCloneSetController(manager: Manager, options: CloneSetControllerOptions = {}): Controller {
  const caches = cloneSetCaches(manager.informers, options.namespace);
  const gates = options.featureGates ?? {};
  // A pod without a controller reference enqueues every CloneSet of its namespace whose selector
  // matches it (OpenKruise's controller mechanics), so one holding a non-controller reference is adopted (OpenKruise's pod predicates).
  const selectingCloneSets = (pod: DeepReadonly<KubeObject>): string[] => {
    const labels = { ...(pod.metadata?.labels ?? {}) };
    return caches.cloneSets
      .list({ namespace: pod.metadata?.namespace })
      .filter((cs) => selectorMatches(cs.spec.selector as CloneSetLike['spec']['selector'], labels))
      .map((cs) => namespacedKey(cs.metadata.namespace, cs.metadata.name ?? ''));
  };
  // On a shard, a pod or PVC that left the view without a deletion mark is read back: gone, its
  // CloneSet plans at once; still there, it lives on another shard and the CloneSet waits.
  const lookup = (resource: GroupVersionResource) => (obj: DeepReadonly<KubeObject>): Promise<KubeObject | undefined> =>
    manager.client.resource(resource).find(obj.metadata?.namespace, obj.metadata?.name ?? '');
  return (
    manager
      .controller(CLONESET_CONTROLLER_NAME, { maxConcurrentReconciles: options.maxConcurrentReconciles, expectationTimeoutMs: options.expectationTimeoutMs })
      .for(caches.cloneSets, { groupKind: CLONESET_GVK })
      .owns(caches.pods, { expectations: (pod) => pod.metadata?.name, orphans: selectingCloneSets, lookup: lookup(podResource) })
      // A PVC turning terminating, or gone, meets the delete expectation of that claim.
      .owns(caches.pvcs, { expectations: (pvc) => pvc.metadata?.name && claimExpectation(pvc.metadata.name), lookup: lookup(pvcResource) })
      .owns(caches.revisions)
      // Read when scale-in ranks by topology and when a resize must fit the node's allocatable; a
      // node's change alone changes no decision.
      .waitsFor(caches.nodes)
      // A plan made from a cache that has not seen our own pod writes could, for example, spend
      // the maxUnavailable budget twice; one planned from an older status could take
      // collisionCount back to a value that names revisions differently from OpenKruise (OpenKruise's ControllerRevisions).
      .tracksOwnWrites(caches.pods)
      .tracksOwnWrites(caches.cloneSets)
      .reactsTo(caches.pods, (c) => failedPodEvents(caches.cloneSets, c.recorder))
      .recordsEvents('cloneset-controller', options.instance ?? 'cloneset-suite')
      .complete((c) =>
        cloneSetReconciler({
          caches,
          client: manager.client,
          clock: manager.clock,
          recorder: c.recorder,
          expectations: c.expectations,
          podWrites: c.ownWrites(caches.pods),
          statusWrites: c.ownWrites(caches.cloneSets),
          gates,
          random: options.random ?? Math.random,
          resizeDeferredTimeoutMs: options.resizeDeferredTimeoutMs,
          // Image pre-download (OpenKruise's update features) only with the gate on and the ImagePullJob CRD served.
          imagePullJobs: gates.PreDownloadImageForInPlaceUpdate
            ? new ImagePullJobSupport({ client: manager.client, clock: manager.clock, logger: manager.logger, enabled: true, controller: CLONESET_CONTROLLER_NAME })
            : undefined,
          // A shard of a ring: its caches show this shard's objects only (the manager's shard scope).
          ring: manager.ring ? { name: manager.ring.ring, handover: new ShardHandover({ client: manager.client, now: () => manager.clock.now(), membership: manager.ring }) } : undefined,
        }),
      )
  );
}
