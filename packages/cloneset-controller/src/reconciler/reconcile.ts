// One CloneSet pass, the controller's imperative shell (README, Architecture): from the cached
// CloneSet the builder hands it (once the cache shows our own status and pod writes), gather inputs
// from the shared caches, plan the pass (planReconcileStages, the event loop getting a turn between two
// stages once 10 ms have passed), execute its actions, write /status only when it changed, and
// say what comes next: done, requeue after a delay, or the pass's failures thrown for the error
// policy (a lost race included).
import type { V1ControllerRevision, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import {
  OwnerUIDIndex,
  done,
  namespacedKey,
  requeueAfter,
  runInTurns,
  yieldToEventLoop,
  type Clock,
  type DeepReadonly,
  type EventRecorder,
  type KubeClient,
  type ReconcileAction,
  type ReconcileContext,
  type ReconcilerParts,
  type ResourceVersionExpectations,
  type ScaleExpectations,
  isDraining,
} from '@cloneset-suite/kube-runtime';
import type { FeatureGates } from '../core/keys.ts';
import { describePlan, planReconcileStages, statusInputFor } from '../core/reconcile-plan.ts';
import { selectorMatches } from '../core/selector.ts';
import { computeStatus, statusEquals } from '../core/status/status.ts';
import { cachedAllocatable, type CloneSetCaches, type CloneSetObject } from './caches.ts';
import { observeCachedCreates } from './cached-creates.ts';
import { executePlan } from './executor.ts';
import type { ImagePullJobSupport } from './image-pull-jobs.ts';
import { passError } from './pass-error.ts';
import { writeCloneSetStatus } from './status-write.ts';
import { acknowledgeDrain } from './shard-drain.ts';
import type { ShardHandover } from './shard-handover.ts';

export interface CloneSetReconcilerDeps {
  caches: CloneSetCaches;
  client: KubeClient;
  clock: Clock;
  recorder: EventRecorder;
  expectations: ScaleExpectations;
  /** Versions of our own pod writes and status writes: the builder holds a pass until the caches show them. */
  podWrites: ResourceVersionExpectations;
  statusWrites: ResourceVersionExpectations;
  gates: FeatureGates;
  random: () => number;
  /** How long a Deferred in-place resize may wait before its pod is re-created (default 5 min). */
  resizeDeferredTimeoutMs: number | undefined;
  imagePullJobs: ImagePullJobSupport | undefined;
  /** Set on a shard of a ControllerRing: drains are acknowledged, a CloneSet just given waits for its caches, creations carry its shard label. */
  ring?: { name: string; handover: ShardHandover } | undefined;
}

// The caches hold the JSON the apiserver sent (timestamps are strings); the planners read
// client-node's shapes and accept either form, hence the casts at the boundary.
const asPods = (objs: readonly unknown[]): V1Pod[] => objs as V1Pod[];

/** Requeue while a drain's write met a newer version or the handover waits for the caches. */
const STALE_CACHE_REQUEUE_MS = 1_000;

function cacheView(caches: CloneSetCaches) {
  return {
    pods: (key: string) => caches.pods.getByKey(key) !== undefined,
    pvcs: (key: string) => caches.pvcs.getByKey(key) !== undefined,
    revisions: (key: string) => caches.revisions.getByKey(key) !== undefined,
  };
}

export function cloneSetReconciler(deps: CloneSetReconcilerDeps): ReconcilerParts<CloneSetObject> {
  const { caches, client, clock, recorder, expectations, podWrites, statusWrites, gates, random, resizeDeferredTimeoutMs, imagePullJobs, ring } = deps;
  // What is kept in memory for a CloneSet: dropped when it leaves this manager's view or is drained.
  const forget = (key: string): void => {
    expectations.delete(key);
    statusWrites.delete(key);
    imagePullJobs?.forget(key);
    ring?.handover.forget(key);
  };
  // Looked up in the cache only when scale-in ranks by topology; cached labels are frozen, read only.
  const inCaches = cacheView(caches);
  const nodeLabels = (name: string): Readonly<Record<string, string>> | undefined => caches.nodes.getByKey(name)?.metadata?.labels;
  // Read only for an in-place resize, which must fit the node's allocatable cpu and memory.
  const nodeAllocatable = (name: string): Readonly<Record<string, string>> | undefined => cachedAllocatable(caches.nodes.getByKey(name));

  const reconcile = async (cached: DeepReadonly<CloneSetObject>, ctx: ReconcileContext): Promise<ReconcileAction> => {
    const cs = cached as CloneSetObject;
    const key = ctx.key;
    if (ring && isDraining(cs, ring.name)) {
      const outcome = await acknowledgeDrain(cs, ring.name, { client, forget: () => forget(key), logger: ctx.logger, signal: ctx.signal });
      return outcome === 'changed-since-read' ? requeueAfter(STALE_CACHE_REQUEUE_MS) : done();
    }
    const ns = cs.metadata.namespace;
    observeCachedCreates(expectations, key, (name) => caches.pods.getByKey(namespacedKey(ns, name)) !== undefined);
    if (!expectations.satisfied(key)) {
      ctx.logger.debug({ cloneSet: key, pending: expectations.pending(key) }, 'waiting for the cache to observe earlier creates and deletes');
      return done();
    }
    if (ring) {
      const handover = await ring.handover.check(key, cs, inCaches, ctx.signal);
      if (!handover.ready) {
        ctx.logger.debug({ cloneSet: key, missing: handover.missing }, 'waiting for the caches to show what this CloneSet controls in the cluster');
        return requeueAfter(STALE_CACHE_REQUEUE_MS);
      }
    }
    const uid = cs.metadata.uid ?? '';
    const cachedPods = caches.pods.byIndex(OwnerUIDIndex, uid);
    const nowMs = clock.now();
    // The stages plan from the pods listed above; the lookups below read the cache when called.
    const plan = await runInTurns(planReconcileStages({
      cs,
      pods: asPods(cachedPods),
      pvcs: caches.pvcs.byIndex(OwnerUIDIndex, uid).filter((p) => !p.metadata?.deletionTimestamp) as unknown as V1PersistentVolumeClaim[],
      revisions: caches.revisions.byIndex(OwnerUIDIndex, uid).filter((r) => selectorMatches(cs.spec.selector, { ...(r.metadata?.labels ?? {}) })) as unknown as V1ControllerRevision[],
      revisionNameTaken: (name) => caches.revisions.get(ns, name) !== undefined,
      gates,
      nowMs,
      random,
      nodeLabels,
      nodeAllocatable,
      resizeDeferredTimeoutMs,
      // Any pod of the namespace by name from the cache, ours or not: a released pod keeps its name (OpenKruise's instance ids).
      podNamed: (name) => asPods([caches.pods.getByKey(namespacedKey(ns, name))].filter(Boolean))[0],
      imagePullJobCrdPresent: imagePullJobs ? await imagePullJobs.available(ctx.signal) : false,
    }));
    // describePlan renders every wait's text: only when the line is written, not on every pass.
    if (ctx.logger.isLevelEnabled('debug')) ctx.logger.debug({ cloneSet: key, ...describePlan(plan) }, 'reconcile plan');

    const execution = await executePlan(plan.actions, {
      client,
      clock,
      recorder,
      expectations,
      logger: ctx.logger,
      key,
      cs,
      podsByName: new Map(cachedPods.map((p) => [p.metadata?.name ?? '', p])),
      signal: ctx.signal,
      podWritten: (name, rv) => podWrites.expect(namespacedKey(ns, name), rv),
      ring: ring?.name,
      imagePullJobs,
    });

    // A pass with nothing to write would otherwise read every pod once more in the planner's last turn.
    await yieldToEventLoop();
    const { status, requeueAfterMs: statusRequeueMs } = computeStatus(statusInputFor(plan, execution.failures, nowMs));
    const conflicts = execution.conflicts.map((c) => c.message);
    if (!statusEquals(cs.status, status)) {
      const written = await writeCloneSetStatus(client, cs, status, ctx.signal);
      if (written.written) statusWrites.expect(key, written.resourceVersion);
      else conflicts.push('status: the CloneSet changed since the cache read');
    }
    // Failures fail their step's condition and go to the queue (a Retry-After among them sets the
    // backoff); a write that lost a race (the status included) is replanned from a fresher cache,
    // with backoff, failing no condition and recording no Event.
    const failed = passError(plan.errors, execution.failures, conflicts);
    if (failed) throw failed;
    return requeueAfter(plan.requeueAfterMs, statusRequeueMs);
  };

  return { reconcile, forget };
}
