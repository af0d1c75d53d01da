// The CloneSet controller's imperative shell (ARCHITECTURE.md): gather inputs from the shared
// caches, call planReconcile, execute its actions, write /status only when it changed.
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
  OwnerUIDIndex,
  ResourceVersionExpectations,
  enqueueControllerOwner,
  namespacedKey,
  type Controller,
  type DeepReadonly,
  type KubeObject,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
} from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../core/keys.ts';
import { CLONESET_GVK } from '@cloneset-suite/api-types';
import { failedPodEvent } from '../core/pods/failed-pod.ts';
import { describePlan, planReconcile, statusInputFor } from '../core/reconcile-plan.ts';
import { selectorMatches } from '../core/selector.ts';
import { computeStatus, statusEquals } from '../core/status/status.ts';
import type { CloneSetLike } from '../core/types.ts';
import { observeCachedCreates } from './cached-creates.ts';
import { claimExpectation } from './claim-expectation.ts';
import { executePlan } from './executor.ts';
import { ImagePullJobSupport } from './image-pull-jobs.ts';
import { cachedAllocatable, nodeCacheScope, pvcCacheScope } from './cache-scopes.ts';
import { passError } from './pass-error.ts';
import { writeCloneSetStatus } from './status-write.ts';
import { cloneSetResource, nodeResource, podResource, pvcResource, revisionResource } from './resources.ts';

export const CLONESET_CONTROLLER_NAME = 'cloneset';

export interface CloneSetControllerOptions {
  /** Watch one namespace; all when undefined. */
  namespace?: string;
  maxConcurrentReconciles?: number;
  featureGates?: FeatureGates;
  /** How long an unobserved create/delete blocks the CloneSet (decisions.md fix 2). */
  expectationTimeoutMs?: number;
  /** Identity for Events' reportingInstance. */
  instance?: string;
  random?: () => number;
  /** How long a Deferred in-place resize may wait before its pod is re-created (default 5 min). */
  resizeDeferredTimeoutMs?: number;
}

type CloneSetObject = CloneSetLike & KubeObject;
// The caches hold the JSON the apiserver sent (timestamps are strings); the planners read
// client-node's shapes and accept either form, hence the casts at the boundary.
const asPods = (objs: readonly unknown[]): V1Pod[] => objs as V1Pod[];
/** enqueueControllerOwner answers one key or none (a single controller reference). */
const singleKey = (keys: Iterable<string> | string | undefined): string | undefined => (typeof keys === 'string' ? keys : undefined);

/** Safety requeue while the cache has not caught up with our own pod writes (§3 step 8). */
const STALE_CACHE_REQUEUE_MS = 1_000;

export function createCloneSetController(manager: Manager, options: CloneSetControllerOptions = {}): Controller {
  const scope = options.namespace ? { namespace: options.namespace } : {};
  const cloneSets = manager.informers.informerFor<CloneSetObject>(cloneSetResource, scope);
  const pods = manager.informers.informerFor<KubeObject>(podResource, scope);
  const pvcs = manager.informers.informerFor<KubeObject>(pvcResource, { ...scope, ...pvcCacheScope });
  const revisions = manager.informers.informerFor<KubeObject>(revisionResource, scope);
  const nodes = manager.informers.informerFor<KubeObject>(nodeResource, nodeCacheScope);
  const gates = options.featureGates ?? {};
  // Looked up in the cache only when scale-in ranks by topology; cached labels are frozen, read only.
  const nodeLabels = (name: string): Readonly<Record<string, string>> | undefined => nodes.getByKey(name)?.metadata?.labels;
  // Read only for an in-place resize, which must fit the node's allocatable cpu and memory.
  const nodeAllocatable = (name: string): Readonly<Record<string, string>> | undefined => cachedAllocatable(nodes.getByKey(name));
  const random = options.random ?? Math.random;

  const recorder = manager.eventRecorder('cloneset-controller', options.instance ?? 'cloneset-suite');
  // Image pre-download (§8.9) only with the gate on and the ImagePullJob CRD served.
  const imagePullJobs = gates.PreDownloadImageForInPlaceUpdate
    ? new ImagePullJobSupport({
        client: manager.client,
        clock: manager.clock,
        logger: manager.logger,
        enabled: true,
        controller: CLONESET_CONTROLLER_NAME,
      })
    : undefined;

  // Registered before the controller's own handlers, so an event satisfies the expectation
  // before the enqueue it causes.
  const expectationsRef: { current?: ReturnType<Manager['scaleExpectations']> } = {};
  const controllerRef: { current?: Controller } = {};
  // resourceVersion expectations for our own pod writes (§3 step 8): a plan made from a
  // cache that has not seen them could, for example, spend the maxUnavailable budget twice.
  const podVersions = new ResourceVersionExpectations({ clock: manager.clock, ...(options.expectationTimeoutMs !== undefined ? { timeoutMs: options.expectationTimeoutMs } : {}) });
  // The CloneSet key of an object whose controller ownerReference is a CloneSet.
  const owningCloneSetKey = enqueueControllerOwner<KubeObject>({ group: CLONESET_GVK.group, kind: CLONESET_GVK.kind });
  const podKey = (pod: DeepReadonly<KubeObject>): string => namespacedKey(pod.metadata?.namespace, pod.metadata?.name ?? '');
  // The same for our status writes: a pass planned from an older status would, for example, take
  // collisionCount back to a value that names revisions differently from OpenKruise (§7).
  const statusVersions = new ResourceVersionExpectations({ clock: manager.clock, ...(options.expectationTimeoutMs !== undefined ? { timeoutMs: options.expectationTimeoutMs } : {}) });
  pods.addEventHandler({
    onAdd: (pod) => {
      podVersions.observe(podKey(pod), pod.metadata?.resourceVersion);
      const key = singleKey(owningCloneSetKey(pod));
      if (key && pod.metadata?.name) expectationsRef.current?.observe(key, 'create', pod.metadata.name);
    },
    onUpdate: (old, pod) => {
      podVersions.observe(podKey(pod), pod.metadata?.resourceVersion);
      // A pod turning terminating satisfies its delete expectation (§6.8).
      const key = singleKey(owningCloneSetKey(pod));
      if (key && pod.metadata?.deletionTimestamp && pod.metadata.name) expectationsRef.current?.observe(key, 'delete', pod.metadata.name);
      // Standbys run the informers too: only the leader (whose controller runs) says it.
      const failed = key && controllerRef.current?.running ? failedPodEvent(old as V1Pod, pod as V1Pod) : undefined;
      const owner = failed && key ? (cloneSets.getByKey(key) as CloneSetObject | undefined) : undefined;
      if (failed && owner) recorder.event(owner, failed.type, failed.reason, 'Replace', failed.message, pod);
    },
    onDelete: (pod) => {
      podVersions.delete(podKey(pod));
      const key = singleKey(owningCloneSetKey(pod));
      if (key && pod.metadata?.name) expectationsRef.current?.observe(key, 'delete', pod.metadata.name);
    },
  });

  // A PVC turning terminating, or gone, satisfies the delete expectation of that claim.
  const observeClaimDelete = (pvc: DeepReadonly<KubeObject>): void => {
    const key = singleKey(owningCloneSetKey(pvc));
    if (key && pvc.metadata?.name) expectationsRef.current?.observe(key, 'delete', claimExpectation(pvc.metadata.name));
  };
  pvcs.addEventHandler({
    onUpdate: (_old, pvc) => {
      if (pvc.metadata?.deletionTimestamp) observeClaimDelete(pvc);
    },
    onDelete: observeClaimDelete,
  });

  const reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> => {
    const expectations = expectationsRef.current!;
    const cs = cloneSets.getByKey(key) as CloneSetObject | undefined;
    if (!cs) {
      expectations.delete(key);
      statusVersions.delete(key);
      imagePullJobs?.forget(key);
      return;
    }
    if (!statusVersions.satisfied(key, cs.metadata.resourceVersion)) {
      ctx.logger.debug({ resourceVersion: cs.metadata.resourceVersion }, 'waiting for the cache to observe our status write');
      return { requeueAfter: STALE_CACHE_REQUEUE_MS };
    }
    observeCachedCreates(expectations, key, (name) => pods.getByKey(namespacedKey(cs.metadata.namespace, name)) !== undefined);
    if (!expectations.satisfied(key)) {
      ctx.logger.debug({ cloneSet: key, pending: expectations.pending(key) }, 'waiting for the cache to observe earlier creates and deletes');
      return;
    }
    const uid = cs.metadata.uid ?? '';
    const cachedPods = pods.byIndex(OwnerUIDIndex, uid);
    const ownedPods = asPods(cachedPods);
    const stale = cachedPods.filter((p) => !podVersions.satisfied(podKey(p), p.metadata?.resourceVersion));
    if (stale.length > 0) {
      ctx.logger.debug({ cloneSet: key, pods: stale.map((p) => p.metadata?.name) }, 'waiting for the cache to observe our pod writes');
      return { requeueAfter: STALE_CACHE_REQUEUE_MS };
    }
    const ownedPvcs = pvcs.byIndex(OwnerUIDIndex, uid).filter((p) => !p.metadata?.deletionTimestamp) as unknown as V1PersistentVolumeClaim[];
    const ownedRevisions = revisions
      .byIndex(OwnerUIDIndex, uid)
      .filter((r) => selectorMatches(cs.spec.selector, { ...(r.metadata?.labels ?? {}) })) as unknown as V1ControllerRevision[];
    const imagePullJobCrdPresent = imagePullJobs ? await imagePullJobs.available(ctx.signal) : false;
    const nowMs = manager.clock.now();
    // Any pod of the namespace by name from the cache, ours or not: a released pod keeps its name (§6.1).
    const podNamed = (name: string): V1Pod | undefined => asPods([pods.getByKey(namespacedKey(cs.metadata.namespace, name))].filter(Boolean))[0];
    const plan = planReconcile({
      cs,
      pods: ownedPods,
      pvcs: ownedPvcs,
      revisions: ownedRevisions,
      revisionNameTaken: (name) => revisions.get(cs.metadata.namespace, name) !== undefined,
      gates,
      nowMs,
      random,
      nodeLabels,
      nodeAllocatable,
      ...(options.resizeDeferredTimeoutMs !== undefined ? { resizeDeferredTimeoutMs: options.resizeDeferredTimeoutMs } : {}),
      podNamed,
      imagePullJobCrdPresent,
    });
    ctx.logger.debug({ cloneSet: key, ...describePlan(plan) }, 'reconcile plan');

    const execution = await executePlan(plan.actions, {
      client: manager.client,
      recorder,
      expectations,
      logger: ctx.logger,
      key,
      cs,
      podsByName: new Map(cachedPods.map((p) => [p.metadata?.name ?? '', p])),
      signal: ctx.signal,
      podWritten: (name, rv) => podVersions.expect(namespacedKey(cs.metadata.namespace, name), rv),
      ...(imagePullJobs ? { imagePullJobs } : {}),
    });

    const { status, requeueAfterMs: statusRequeueMs } = computeStatus(statusInputFor(plan, execution.failures, nowMs));
    let statusConflict = false;
    if (!statusEquals(cs.status, status)) {
      const written = await writeCloneSetStatus(manager.client, cs, status, ctx.signal);
      if (written.written) statusVersions.expect(key, written.resourceVersion);
      else statusConflict = true;
    }
    // The errors themselves go to the queue, so a Retry-After among them sets the backoff.
    const failed = passError(plan.errors, execution.failures);
    if (failed) throw failed;
    // A write that lost a race (the status included): replan from a fresher cache, with backoff,
    // failing no condition and recording no Event.
    if (execution.conflicts.length > 0 || statusConflict) {
      const conflicts = [...execution.conflicts.map((c) => c.message), ...(statusConflict ? ['status: the CloneSet changed since the cache read'] : [])];
      ctx.logger.debug({ cloneSet: key, conflicts }, 'writes lost a race; replanning');
      return { requeue: true };
    }
    const requeueMs = [plan.requeueAfterMs, statusRequeueMs].filter((ms): ms is number => ms !== undefined && ms > 0);
    return requeueMs.length ? { requeueAfter: Math.min(...requeueMs) } : undefined;
  };

  const controller = manager.addController({
    name: CLONESET_CONTROLLER_NAME,
    reconcile,
    ...(options.maxConcurrentReconciles !== undefined ? { maxConcurrentReconciles: options.maxConcurrentReconciles } : {}),
  });
  expectationsRef.current = manager.scaleExpectations(controller, options.expectationTimeoutMs);
  controllerRef.current = controller;
  const ownerKey = owningCloneSetKey;
  // A pod without a controller reference enqueues every CloneSet of its namespace whose
  // selector matches it (§11), so one holding a non-controller reference is adopted (§2).
  const podKeys = (pod: DeepReadonly<KubeObject>): Iterable<string> | string | undefined => {
    if (pod.metadata?.ownerReferences?.some((r) => r.controller === true)) return ownerKey(pod);
    const labels = { ...(pod.metadata?.labels ?? {}) };
    return cloneSets
      .list()
      .filter((cs) => cs.metadata?.namespace === pod.metadata?.namespace && selectorMatches(cs.spec.selector as CloneSetLike['spec']['selector'], labels))
      .map((cs) => namespacedKey(cs.metadata?.namespace, cs.metadata?.name ?? ''));
  };
  controller
    .watches(cloneSets, (cs) => namespacedKey(cs.metadata?.namespace, cs.metadata?.name ?? ''))
    .watches(pods, podKeys)
    .watches(pvcs, ownerKey)
    .watches(revisions, ownerKey)
    .watches(nodes, () => undefined);
  return controller;
}
