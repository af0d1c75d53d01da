// Executes a reconcile plan: one API call (or two) per action, in plan order. Creates run in
// slow-start batches and stop at the first failed batch (§6.4); every create and delete is
// registered in the expectations before the call so a fast second pass cannot repeat it (§6.8).
import {
  isAlreadyExists,
  isNotFound,
  retryOnConflict,
  jsonPatch,
  mergePatch,
  RawJson,
  strategicMergePatch,
  type DeepReadonly,
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  type Logger,
  type ScaleExpectations,
} from '@cloneset-suite/kube-runtime';
import { INPLACE_UPDATE_READY, KRUISE_POD_READY, REVISION_LABEL } from '../core/keys.ts';
import { ownerRefTo } from '../core/owner-ref.ts';
import type { CreatePodAction, InPlaceUpdateAction, PlanAction, PodConditionPatch } from '../core/plan.ts';
import type { CloneSetLike } from '../core/types.ts';
import { deleteOwnedImagePullJobs, imagePullJobResource, type ImagePullJobSupport } from './image-pull-jobs.ts';
import { cloneSetResource, podResource, pvcResource, revisionResource } from './resources.ts';

export interface ExecutionContext {
  client: KubeClient;
  recorder: EventRecorder;
  expectations: ScaleExpectations;
  logger: Logger;
  /** The CloneSet key (namespace/name) the expectations are kept under. */
  key: string;
  cs: CloneSetLike & KubeObject;
  /** Pods from the cache by name (resourceVersion preconditions, finalizer merges). */
  podsByName: ReadonlyMap<string, DeepReadonly<KubeObject>>;
  signal: AbortSignal;
  nowIso: () => string;
  /** Called with the resourceVersion every pod write returned (§3 step 8 expectations). */
  podWritten?: (name: string, resourceVersion: string | undefined) => void;
  /** Image pre-download bookkeeping (§8.9); its actions are only planned when this is set. */
  imagePullJobs?: ImagePullJobSupport;
}

/** Per-plan bookkeeping: the version of each pod our own writes in this plan produced. */
interface PlanState {
  written: Map<string, string>;
}

export interface ExecutionResult {
  /** Messages of failed scale actions (FailedScale) and update actions (FailedUpdate). */
  scaleFailures: string[];
  updateFailures: string[];
  /** Something was written that the cache has not seen yet: come back soon. */
  wrote: boolean;
  /** A create stopped on a name held by a terminating pod (decisions.md fix 5): wait. */
  waitingForName: boolean;
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Writes to different pods in one plan go out together, as the ReplicaSet controller does. */
const POD_WRITE_CONCURRENCY = 16;

/** The pod an action writes, for actions that touch exactly one existing pod. */
function podOf(action: PlanAction): string | undefined {
  switch (action.kind) {
    case 'deletePod':
    case 'patchPod':
    case 'setPodConditions':
    case 'inPlaceUpdate':
    case 'releasePod':
    case 'adoptPod':
      return action.name;
    default:
      return undefined;
  }
}

export async function executePlan(actions: readonly PlanAction[], ctx: ExecutionContext): Promise<ExecutionResult> {
  const result: ExecutionResult = { scaleFailures: [], updateFailures: [], wrote: false, waitingForName: false };
  const state: PlanState = { written: new Map() };
  const creates = actions.filter((a): a is CreatePodAction => a.kind === 'createPod');
  const runOne = async (action: Exclude<PlanAction, CreatePodAction>): Promise<void> => {
    try {
      await executeOne(action, ctx, result, state);
    } catch (err) {
      const message = `${action.kind} ${'name' in action ? action.name : ''}: ${errorMessage(err)}`.trim();
      ctx.logger.warn({ err, action: action.kind }, 'plan action failed');
      if (isUpdateAction(action)) result.updateFailures.push(message);
      else result.scaleFailures.push(message);
    }
  };
  let createsDone = false;
  for (let i = 0; i < actions.length && !ctx.signal.aborted; ) {
    const action = actions[i]!;
    if (action.kind === 'createPod') {
      if (!createsDone) {
        createsDone = true;
        await createInBatches(creates, ctx, result);
      }
      i++;
      continue;
    }
    if (podOf(action) === undefined) {
      await runOne(action);
      i++;
      continue;
    }
    // A run of per-pod actions: each pod's actions stay in plan order, pods proceed in parallel.
    const perPod = new Map<string, Exclude<PlanAction, CreatePodAction>[]>();
    for (; i < actions.length; i++) {
      const a = actions[i]!;
      const pod = podOf(a);
      if (pod === undefined) break;
      const queued = perPod.get(pod);
      if (queued) queued.push(a as Exclude<PlanAction, CreatePodAction>);
      else perPod.set(pod, [a as Exclude<PlanAction, CreatePodAction>]);
    }
    await forEachLimited([...perPod.values()], POD_WRITE_CONCURRENCY, async (podActions) => {
      for (const a of podActions) {
        if (ctx.signal.aborted) return;
        await runOne(a);
      }
    });
  }
  return result;
}

async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function isUpdateAction(action: PlanAction): boolean {
  return action.kind === 'inPlaceUpdate' || action.kind === 'setPodConditions' || (action.kind === 'patchPod' && action.reason !== 'Lifecycle');
}

async function createInBatches(creates: readonly CreatePodAction[], ctx: ExecutionContext, result: ExecutionResult): Promise<void> {
  const batches = Map.groupBy(creates, (c) => c.batch);
  // Each created pod's readiness-gate write runs beside the next batches: slow start waits on
  // the creates only, so the batches are not twice as long.
  const gateWrites: Promise<void>[] = [];
  try {
    for (const batch of [...batches.keys()].sort((a, b) => a - b)) {
      const outcomes = await Promise.all((batches.get(batch) ?? []).map((c) => createPod(c, ctx, result, gateWrites)));
      // Slow start: the remaining batches are not attempted; their expectations were never set.
      if (outcomes.some((ok) => !ok)) return;
    }
  } finally {
    await Promise.all(gateWrites);
  }
}

async function createPod(action: CreatePodAction, ctx: ExecutionContext, result: ExecutionResult, gateWrites: Promise<void>[]): Promise<boolean> {
  const ns = ctx.cs.metadata.namespace;
  const pods = ctx.client.resource<KubeObject>(podResource);
  const pvcs = ctx.client.resource<KubeObject>(pvcResource);
  try {
    for (const pvc of action.pvcs) {
      try {
        await pvcs.create(pvc as unknown as KubeObject, ns ? { namespace: ns, signal: ctx.signal } : { signal: ctx.signal });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
  } catch (err) {
    result.scaleFailures.push(`create pvc for pod ${action.name}: ${errorMessage(err)}`);
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pvc for pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
  ctx.expectations.expect(ctx.key, 'create', action.name);
  try {
    const created = await pods.create(action.pod as unknown as KubeObject, ns ? { namespace: ns, signal: ctx.signal } : { signal: ctx.signal });
    result.wrote = true;
    ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod ${action.name}`, created);
    gateWrites.push(markGatesReady(action.name, ctx));
    return true;
  } catch (err) {
    ctx.expectations.observe(ctx.key, 'create', action.name);
    if (isAlreadyExists(err)) {
      // A pod object of that name still exists (terminating): wait for it (decisions.md fix 5).
      result.waitingForName = true;
      return false;
    }
    result.scaleFailures.push(`create pod ${action.name}: ${errorMessage(err)}`);
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
}

/** decisions.md: both readiness-gate conditions True in one status write right after create. */
async function markGatesReady(name: string, ctx: ExecutionContext): Promise<void> {
  const now = ctx.nowIso();
  const conditions = [INPLACE_UPDATE_READY, KRUISE_POD_READY].map((type) => ({ type, status: 'True', lastTransitionTime: now }));
  try {
    const pod = await ctx.client
      .resource<KubeObject>(podResource)
      .patchStatus(ctx.cs.metadata.namespace, name, strategicMergePatch({ status: { conditions } }), { signal: ctx.signal });
    ctx.podWritten?.(name, pod.metadata?.resourceVersion);
  } catch (err) {
    // The next pass sees the missing conditions and sets them through the refresh planner.
    ctx.logger.warn({ err, pod: name }, 'setting readiness-gate conditions failed');
  }
}

interface CachedCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}
interface CachedPodShape {
  spec?: { readinessGates?: { conditionType: string }[] };
  status?: { conditions?: CachedCondition[] };
}

/**
 * The conditions list of one /status patch. A strategic merge patch merges conditions by
 * type field by field, so an absent reason or message would keep the old one (e.g.
 * StartInPlaceUpdate on a True condition, which refresh then rewrites forever): absent
 * means null (delete). The transition time moves only when the status does. When a
 * readiness gate turns False, PodReady is set False in the same write (§8.7 step 2), so
 * the pod leaves endpoints before its containers are touched; the kubelet turns it back.
 */
export function conditionsPatch(
  cachedPod: DeepReadonly<KubeObject> | undefined,
  changes: readonly PodConditionPatch[],
  now: string,
): Record<string, unknown>[] {
  const pod = cachedPod as CachedPodShape | undefined;
  const existing = pod?.status?.conditions ?? [];
  const since = (type: string, status: string): string => {
    const before = existing.find((e) => e.type === type);
    return before && before.status === status && before.lastTransitionTime ? before.lastTransitionTime : now;
  };
  const out: Record<string, unknown>[] = changes.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? null,
    message: c.message ?? null,
    lastTransitionTime: since(c.type, c.status),
  }));
  const gates = new Set((pod?.spec?.readinessGates ?? []).map((g) => g.conditionType));
  const closing = changes.filter((c) => c.status === 'False' && gates.has(c.type)).map((c) => c.type);
  if (closing.length > 0 && existing.find((e) => e.type === 'Ready')?.status !== 'False') {
    out.push({
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: closing.map((t) => `the status of pod readiness gate "${t}" is not "True", but False`).join(', '),
      lastTransitionTime: now,
    });
  }
  return out;
}

function podWrite(ctx: ExecutionContext, state: PlanState, name: string, obj: KubeObject | undefined): void {
  const rv = obj?.metadata?.resourceVersion;
  if (rv) state.written.set(name, rv);
  ctx.podWritten?.(name, rv);
}

/**
 * The in-place update write (§8.7 step 3), conditional on a resourceVersion so it cannot
 * land on a pod that changed under the plan. A conflict (the kubelet or our own condition
 * write moved the version) re-reads the pod and retries while it is still the same pod at
 * the revision the plan saw; otherwise the next pass replans.
 */
async function inPlaceUpdate(action: InPlaceUpdateAction, ctx: ExecutionContext, state: PlanState): Promise<KubeObject> {
  const ns = ctx.cs.metadata.namespace;
  const pods = ctx.client.resource<KubeObject>(podResource);
  const cached = ctx.podsByName.get(action.name);
  const containers = Object.entries(action.images).map(([name, image]) => ({ name, image }));
  const body = (resourceVersion: string | undefined) =>
    strategicMergePatch({
      metadata: { labels: action.labels, annotations: action.annotations, resourceVersion },
      ...(containers.length ? { spec: { containers } } : {}),
    });
  let version = state.written.get(action.name) ?? cached?.metadata?.resourceVersion;
  return retryOnConflict(
    async (attempt) => {
      if (attempt > 1) {
        const fresh = await pods.get(ns, action.name, { signal: ctx.signal });
        const sameRevision = fresh.metadata?.labels?.[REVISION_LABEL] === cached?.metadata?.labels?.[REVISION_LABEL];
        if (fresh.metadata?.uid !== cached?.metadata?.uid || fresh.metadata?.deletionTimestamp || !sameRevision) {
          throw new Error(`pod ${action.name} changed under the plan; replanning`);
        }
        version = fresh.metadata?.resourceVersion;
      }
      return pods.patch(ns, action.name, body(version), { signal: ctx.signal });
    },
    { signal: ctx.signal },
  );
}

async function executeOne(
  action: Exclude<PlanAction, CreatePodAction>,
  ctx: ExecutionContext,
  result: ExecutionResult,
  state: PlanState,
): Promise<void> {
  const ns = ctx.cs.metadata.namespace;
  const pods = ctx.client.resource<KubeObject>(podResource);
  const pvcs = ctx.client.resource<KubeObject>(pvcResource);
  const revisions = ctx.client.resource<KubeObject>(revisionResource);
  const write = { signal: ctx.signal };
  switch (action.kind) {
    case 'deletePod': {
      ctx.expectations.expect(ctx.key, 'delete', action.name);
      try {
        await pods.delete(ns, action.name, write);
        result.wrote = true;
        ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulDelete', 'Delete', `succeed to delete pod ${action.name}`);
      } catch (err) {
        ctx.expectations.observe(ctx.key, 'delete', action.name);
        if (!isNotFound(err)) {
          ctx.recorder.event(ctx.cs, 'Warning', 'FailedDelete', 'Delete', `failed to delete pod ${action.name}: ${errorMessage(err)}`);
          throw err;
        }
      }
      for (const pvc of action.withPvcs) await deleteIgnoringNotFound(() => pvcs.delete(ns, pvc, write));
      return;
    }
    case 'deletePvc':
      await deleteIgnoringNotFound(() => pvcs.delete(ns, action.name, write));
      result.wrote = true;
      return;
    case 'reownPvc':
      await pvcs.patch(
        ns,
        action.name,
        mergePatch({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: action.pod.name, uid: action.pod.uid, controller: true, blockOwnerDeletion: true }] } }),
        write,
      );
      result.wrote = true;
      return;
    case 'patchPod': {
      const metadata: Record<string, unknown> = {};
      if (action.labels) metadata.labels = action.labels;
      if (action.annotations) metadata.annotations = action.annotations;
      // ObjectMeta.finalizers merges as a set under a strategic merge patch.
      if (action.addFinalizers?.length) metadata.finalizers = action.addFinalizers;
      podWrite(ctx, state, action.name, await pods.patch(ns, action.name, strategicMergePatch({ metadata }), write));
      result.wrote = true;
      return;
    }
    case 'setPodConditions': {
      const conditions = conditionsPatch(ctx.podsByName.get(action.name), action.conditions, ctx.nowIso());
      podWrite(ctx, state, action.name, await pods.patchStatus(ns, action.name, strategicMergePatch({ status: { conditions } }), write));
      result.wrote = true;
      return;
    }
    case 'inPlaceUpdate': {
      try {
        podWrite(ctx, state, action.name, await inPlaceUpdate(action, ctx, state));
      } catch (err) {
        ctx.recorder.event(ctx.cs, 'Warning', 'FailedUpdatePodInPlace', 'Update', `failed to update pod ${action.name} in-place: ${errorMessage(err)}`);
        throw err;
      }
      result.wrote = true;
      ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulUpdatePodInPlace', 'Update', `successfully update pod ${action.name} in-place(revision ${action.revision})`);
      return;
    }
    case 'releasePod': {
      const uid = ctx.cs.metadata.uid;
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [{ $patch: 'delete', uid }] } }), write);
      result.wrote = true;
      return;
    }
    case 'adoptPod': {
      const cached = ctx.podsByName.get(action.name);
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [ownerRefTo(ctx.cs)], resourceVersion: cached?.metadata?.resourceVersion } }), write);
      result.wrote = true;
      return;
    }
    case 'updatePodsToDelete': {
      // Conditional on the list the plan saw (not on resourceVersion, which our own status
      // writes move): a user's concurrent edit fails the test and the next pass replans.
      const path = '/spec/scaleStrategy/podsToDelete';
      const seen = ctx.cs.spec.scaleStrategy?.podsToDelete;
      await ctx.client
        .resource(cloneSetResource)
        .patch(ns, ctx.cs.metadata.name ?? '', jsonPatch([...(seen ? [{ op: 'test' as const, path, value: seen }] : []), { op: 'add', path, value: action.podsToDelete }]), write);
      result.wrote = true;
      return;
    }
    case 'event':
      ctx.recorder.event(ctx.cs, action.type, action.reason, action.reason, action.message);
      return;
    case 'createRevision':
      try {
        // The exact bytes: OpenKruise compares and hashes revision data byte for byte (§7).
        const revision = { ...action.revision, data: new RawJson(action.data) };
        await revisions.create(revision as unknown as KubeObject, ns ? { namespace: ns, signal: ctx.signal } : write);
      } catch (err) {
        // A clash is resolved by the next pass (collisionCount, §7).
        if (!isAlreadyExists(err)) throw err;
      }
      result.wrote = true;
      return;
    case 'updateRevision':
      await revisions.patch(ns, action.name, mergePatch({ revision: action.revision, ...(action.annotations ? { metadata: { annotations: action.annotations } } : {}) }), write);
      result.wrote = true;
      return;
    case 'deleteRevision':
      await deleteIgnoringNotFound(() => revisions.delete(ns, action.name, write));
      result.wrote = true;
      return;
    case 'createImagePullJob':
    case 'labelRevision':
    case 'deleteImagePullJobs':
      await preDownload(action, ctx, result);
      return;
  }
}

/**
 * Image pre-download writes (§8.9). As in kruise, they never fail the pass: a failed create
 * is a Normal FailedCreateImagePullJob event, an existing job is left alone, and a failed
 * revision label or clean-up is logged and tried again by a later pass.
 */
async function preDownload(
  action: Extract<PlanAction, { kind: 'createImagePullJob' | 'labelRevision' | 'deleteImagePullJobs' }>,
  ctx: ExecutionContext,
  result: ExecutionResult,
): Promise<void> {
  const ns = ctx.cs.metadata.namespace;
  const uid = ctx.cs.metadata.uid ?? '';
  switch (action.kind) {
    case 'createImagePullJob':
      try {
        await ctx.client
          .resource<KubeObject>(imagePullJobResource)
          .create(action.job, ns ? { namespace: ns, signal: ctx.signal } : { signal: ctx.signal });
        result.wrote = true;
        ctx.imagePullJobs?.forget(ctx.key);
        ctx.logger.info({ job: action.name, image: action.image, container: action.container }, 'created ImagePullJob');
        ctx.recorder.event(ctx.cs, 'Normal', 'CreatedImagePullJob', 'Create', `created ImagePullJob ${action.name} for image: ${action.image}`);
      } catch (err) {
        if (isAlreadyExists(err)) return;
        ctx.logger.warn({ err, job: action.name }, 'creating an ImagePullJob failed');
        ctx.recorder.event(ctx.cs, 'Normal', 'FailedCreateImagePullJob', 'Create', `failed to create ImagePullJob ${action.name}: ${errorMessage(err)}`);
      }
      return;
    case 'labelRevision':
      try {
        await ctx.client.resource<KubeObject>(revisionResource).patch(ns, action.name, mergePatch({ metadata: { labels: action.labels } }), { signal: ctx.signal });
        result.wrote = true;
        if (action.reason !== 'ImagePullJobsCreated') ctx.logger.debug({ revision: action.name, reason: action.reason }, 'image pre-download skipped for this revision');
      } catch (err) {
        ctx.logger.warn({ err, revision: action.name }, 'marking the revision for image pre-download failed');
      }
      return;
    case 'deleteImagePullJobs': {
      const jobs = ctx.imagePullJobs;
      if (!jobs || jobs.alreadyCleaned(ctx.key, uid, action.revision)) return;
      try {
        const deleted = await deleteOwnedImagePullJobs(ctx.client, ns, uid, ctx.signal);
        if (deleted.length) {
          result.wrote = true;
          ctx.logger.info({ jobs: deleted, revision: action.revision }, 'deleted ImagePullJobs: the rollout is complete');
        }
        jobs.markCleaned(ctx.key, uid, action.revision);
      } catch (err) {
        ctx.logger.warn({ err }, 'deleting ImagePullJobs failed');
      }
      return;
    }
  }
}

async function deleteIgnoringNotFound(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
