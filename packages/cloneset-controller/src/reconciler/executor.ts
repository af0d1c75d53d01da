// Executes a reconcile plan: one API call (or two) per action, in plan order. Creates run in
// slow-start batches and stop at the first failed batch (§6.4); every create and delete is
// registered in the expectations before the call so a fast second pass cannot repeat it (§6.8).
import {
  abortedByStop,
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
import { REVISION_LABEL } from '../core/keys.ts';
import { ownerRefTo } from '../core/owner-ref.ts';
import type { CreatePodAction, InPlaceUpdateAction, PlanAction, PlannedAction } from '../core/plan.ts';
import type { CloneSetLike } from '../core/types.ts';
import { deleteImagePullJobs, imagePullJobResource, type ImagePullJobSupport } from './image-pull-jobs.ts';
import { writeOperation } from './operation-writes.ts';
import type { ExecutedFailure } from './pass-error.ts';
import { writeOutcome } from './write-outcome.ts';
import { claimExpectation } from './claim-expectation.ts';
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
  /** Failed actions with the step that planned them (the condition they fail, §10.2). */
  failures: ExecutedFailure[];
  /** Writes that lost a race (409, a failed patch test): the pass requeues, no condition fails. */
  conflicts: ExecutedFailure[];
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The pod an action writes, for actions that touch exactly one existing pod. */
function podOf(action: PlanAction): string | undefined {
  switch (action.kind) {
    case 'deletePod':
    case 'beginOperation':
    case 'finishOperation':
    case 'undoOperation':
    case 'patchPod':
    case 'setPodConditions':
    case 'inPlaceUpdate':
    case 'resizePod':
    case 'releasePod':
    case 'adoptPod':
    case 'podEvent':
      return action.name;
    default:
      return undefined;
  }
}

type PlannedCreate = CreatePodAction & Pick<PlannedAction, 'step'>;
type PlannedOther = Exclude<PlanAction, CreatePodAction> & Pick<PlannedAction, 'step'>;

export async function executePlan(actions: readonly PlannedAction[], ctx: ExecutionContext): Promise<ExecutionResult> {
  const result: ExecutionResult = { failures: [], conflicts: [] };
  const state: PlanState = { written: new Map() };
  const creates = actions.filter((a): a is PlannedCreate => a.kind === 'createPod');
  /** Runs one action; false when it failed or lost a race. */
  const runOne = async (action: PlannedOther): Promise<boolean> => {
    try {
      await executeOne(action, ctx, state);
      return true;
    } catch (err) {
      if (abortedByStop(ctx.signal)) {
        // The manager is stopping: nothing failed, and the next leader replans from its cache
        // whether this write landed or not (no Warning, no failed condition).
        ctx.logger.info({ action: action.kind, step: action.step }, 'plan action cut short by shutdown; the next leader replans');
        return false;
      }
      const message = `${action.kind} ${'name' in action ? action.name : ''}: ${errorMessage(err)}`.trim();
      if (writeOutcome(err) === 'conflict') {
        ctx.logger.debug({ err, action: action.kind, step: action.step }, 'plan action lost a race; replanning');
        result.conflicts.push({ step: action.step, message, error: err });
        return false;
      }
      ctx.logger.warn({ err, action: action.kind, step: action.step }, 'plan action failed');
      result.failures.push({ step: action.step, message, error: err });
      return false;
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
    // A pod's later actions were planned on its earlier ones landing (the gate False before the
    // in-place update, the specified-delete mark before the delete): its first failure ends them.
    const perPod = new Map<string, PlannedOther[]>();
    for (; i < actions.length; i++) {
      const a = actions[i]!;
      const pod = podOf(a);
      if (pod === undefined) break;
      const queued = perPod.get(pod);
      if (queued) queued.push(a as PlannedOther);
      else perPod.set(pod, [a as PlannedOther]);
    }
    // Writes to different pods in one plan go out together, as the ReplicaSet controller sends a
    // whole burst of deletes at once, as many at a time as the client sends requests.
    await forEachLimited([...perPod.values()], ctx.client.maxConcurrentRequests, async (podActions) => {
      for (const a of podActions) {
        if (ctx.signal.aborted || !(await runOne(a))) return;
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

async function createInBatches(creates: readonly PlannedCreate[], ctx: ExecutionContext, result: ExecutionResult): Promise<void> {
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

async function createPod(action: PlannedCreate, ctx: ExecutionContext, result: ExecutionResult, gateWrites: Promise<void>[]): Promise<boolean> {
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
    result.failures.push({ step: action.step, message: `create pvc for pod ${action.name}: ${errorMessage(err)}`, error: err });
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pvc for pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
  ctx.expectations.expect(ctx.key, 'create', action.name);
  try {
    const created = await pods.create(action.pod as unknown as KubeObject, ns ? { namespace: ns, signal: ctx.signal } : { signal: ctx.signal });
    ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulCreate', 'Create', `succeed to create pod ${action.name}`, created);
    gateWrites.push(writeInitialConditions(action, ctx));
    return true;
  } catch (err) {
    if (writeOutcome(err, ctx.signal) === 'unknown') {
      // The POST may have landed: the expectation stays, so the next pass waits for the cache
      // (or the expectation window) instead of creating a second pod under a new id.
      if (abortedByStop(ctx.signal)) {
        // The manager is stopping: nothing is wrong, and the next leader's cache shows the pod or not.
        ctx.logger.info({ pod: action.name }, 'pod create cut short by shutdown; the next leader sees whether it landed');
        return false;
      }
      ctx.logger.warn({ err, pod: action.name }, 'pod create outcome unknown; waiting for the cache');
      ctx.recorder.event(ctx.cs, 'Warning', 'CreatePodOutcomeUnknown', 'Create', `no answer to the create of pod ${action.name}: ${errorMessage(err)}; waiting for it to show up before creating more`);
      return false;
    }
    // AlreadyExists: the planner saw no pod of that name (decisions.md fix 5), so the cache is
    // behind (the pod may be one of ours whose create landed unanswered). The expectation stays
    // until the cache shows the pod, so no pass plans from the cache that missed it; the failure
    // is retried with backoff.
    if (!isAlreadyExists(err)) ctx.expectations.observe(ctx.key, 'create', action.name);
    result.failures.push({ step: action.step, message: `create pod ${action.name}: ${errorMessage(err)}`, error: err });
    ctx.recorder.event(ctx.cs, 'Warning', 'FailedCreate', 'Create', `failed to create pod ${action.name}: ${errorMessage(err)}`);
    return false;
  }
}

/** The planned /status write that follows a create (decisions.md: both readiness gates True). */
async function writeInitialConditions(action: CreatePodAction, ctx: ExecutionContext): Promise<void> {
  try {
    const pod = await ctx.client
      .resource<KubeObject>(podResource)
      .patchStatus(ctx.cs.metadata.namespace, action.name, strategicMergePatch({ status: { conditions: action.initialConditions } }), { signal: ctx.signal });
    ctx.podWritten?.(action.name, pod.metadata?.resourceVersion);
  } catch (err) {
    // The next pass sees the missing conditions and sets them through the refresh planner.
    ctx.logger.warn({ err, pod: action.name }, 'setting readiness-gate conditions failed');
  }
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

async function executeOne(action: PlannedOther, ctx: ExecutionContext, state: PlanState): Promise<void> {
  const ns = ctx.cs.metadata.namespace;
  const pods = ctx.client.resource<KubeObject>(podResource);
  const pvcs = ctx.client.resource<KubeObject>(pvcResource);
  const revisions = ctx.client.resource<KubeObject>(revisionResource);
  const write = { signal: ctx.signal };
  switch (action.kind) {
    case 'deletePod': {
      ctx.expectations.expect(ctx.key, 'delete', action.name);
      // Only the pod the plan chose: a new pod that took its name meanwhile answers 409.
      const uid = ctx.podsByName.get(action.name)?.metadata?.uid;
      try {
        await pods.delete(ns, action.name, uid ? { ...write, preconditions: { uid } } : write);
        ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulDelete', 'Delete', `succeed to delete pod ${action.name}`);
      } catch (err) {
        ctx.expectations.observe(ctx.key, 'delete', action.name);
        if (writeOutcome(err) === 'conflict') throw err;
        if (!isNotFound(err)) {
          ctx.recorder.event(ctx.cs, 'Warning', 'FailedDelete', 'Delete', `failed to delete pod ${action.name}: ${errorMessage(err)}`);
          throw err;
        }
      }
      for (const pvc of action.withPvcs) {
        await deleteClaim(ctx, pvc, `failed to delete pvc ${pvc}`, () => pvcs.delete(ns, pvc, write));
      }
      return;
    }
    case 'deletePvc':
      await deleteClaim(ctx, action.name, `failed to clean up PVC ${action.name}`, () => pvcs.delete(ns, action.name, write));
      return;
    case 'reownPvc': {
      // Only the entry that changes, tested first: other owners stay, and a PVC whose owners moved
      // since the plan read them fails the test (a conflict) instead of being overwritten.
      const path = `/metadata/ownerReferences/${action.replaces.index}`;
      await withWarning(ctx, 'FailedUpdate', 'Update', `failed to update PVC ${action.name} owner to pod ${action.ownerReference.name}`, () =>
        pvcs.patch(ns, action.name, jsonPatch([{ op: 'test', path, value: action.replaces.ownerReference }, { op: 'replace', path, value: action.ownerReference }]), write),
      );
      return;
    }
    case 'patchPod': {
      const metadata: Record<string, unknown> = {};
      if (action.labels) metadata.labels = action.labels;
      if (action.annotations) metadata.annotations = action.annotations;
      // ObjectMeta.finalizers merges as a set under a strategic merge patch.
      if (action.addFinalizers?.length) metadata.finalizers = action.addFinalizers;
      let patched: KubeObject;
      try {
        patched = await pods.patch(ns, action.name, strategicMergePatch({ metadata }), write);
      } catch (err) {
        const failure = action.outcome?.failure;
        if (failure) ctx.recorder.event(ctx.cs, failure.type, failure.reason, 'Update', `${failure.message}: ${errorMessage(err)}`);
        throw err;
      }
      podWrite(ctx, state, action.name, patched);
      const success = action.outcome?.success;
      if (success) ctx.recorder.event(ctx.cs, success.type, success.reason, 'Update', success.message);
      return;
    }
    case 'setPodConditions': {
      podWrite(ctx, state, action.name, await pods.patchStatus(ns, action.name, strategicMergePatch({ status: { conditions: action.write } }), write));
      return;
    }
    case 'inPlaceUpdate': {
      try {
        podWrite(ctx, state, action.name, await inPlaceUpdate(action, ctx, state));
      } catch (err) {
        ctx.recorder.event(ctx.cs, 'Warning', 'FailedUpdatePodInPlace', 'Update', `failed to update pod ${action.name} in-place: ${errorMessage(err)}`);
        throw err;
      }
      ctx.recorder.event(ctx.cs, 'Normal', 'SuccessfulUpdatePodInPlace', 'Update', `successfully update pod ${action.name} in-place(revision ${action.revision})`);
      return;
    }
    case 'resizePod': {
      // The resources of each container by name (a strategic merge keyed by name): the resize
      // subresource takes nothing else, and the apiserver refuses what the node cannot hold.
      const containers = Object.entries(action.containers).map(([name, resources]) => ({ name, resources }));
      try {
        podWrite(ctx, state, action.name, await pods.patchSubresource(ns, action.name, 'resize', strategicMergePatch({ spec: { containers } }), write));
      } catch (err) {
        ctx.recorder.event(ctx.cs, 'Warning', 'FailedUpdatePodInPlace', 'Update', `failed to resize pod ${action.name} in-place: ${errorMessage(err)}`);
        throw err;
      }
      return;
    }
    case 'beginOperation':
    case 'finishOperation':
    case 'undoOperation': {
      const cached = ctx.podsByName.get(action.name);
      const pod = state.written.has(action.name) ? await pods.get(ns, action.name, write) : cached;
      podWrite(ctx, state, action.name, await writeOperation(action, pod as KubeObject | undefined, pods, ns, ctx));
      return;
    }
    case 'releasePod': {
      const uid = ctx.cs.metadata.uid;
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [{ $patch: 'delete', uid }] } }), write);
      return;
    }
    case 'adoptPod': {
      const cached = ctx.podsByName.get(action.name);
      await pods.patch(ns, action.name, strategicMergePatch({ metadata: { ownerReferences: [ownerRefTo(ctx.cs)], resourceVersion: cached?.metadata?.resourceVersion } }), write);
      return;
    }
    case 'updatePodsToDelete': {
      // Conditional on the list the plan saw (not on resourceVersion, which our own status
      // writes move): a user's concurrent edit fails the test and the next pass replans.
      const path = '/spec/scaleStrategy/podsToDelete';
      const seen = ctx.cs.spec.scaleStrategy?.podsToDelete;
      await ctx.client
        .resource(cloneSetResource)
        .patch(
          ns,
          ctx.cs.metadata.name ?? '',
          jsonPatch([
            ...(seen ? [{ op: 'test' as const, path, value: seen }] : []),
            // An empty list is removed, as OpenKruise omits it (§1.3).
            action.podsToDelete.length === 0 && seen ? { op: 'remove' as const, path } : { op: 'add' as const, path, value: action.podsToDelete },
          ]),
          write,
        );
      return;
    }
    case 'event':
      ctx.recorder.event(ctx.cs, action.type, action.reason, action.reason, action.message);
      return;
    case 'podEvent': {
      const pod = ctx.podsByName.get(action.name);
      if (pod) ctx.recorder.event(pod, action.type, action.reason, action.reason, action.message, ctx.cs);
      return;
    }
    case 'createRevision':
      try {
        // The exact bytes: OpenKruise compares and hashes revision data byte for byte (§7).
        const revision = { ...action.revision, data: new RawJson(action.data) };
        await revisions.create(revision as unknown as KubeObject, ns ? { namespace: ns, signal: ctx.signal } : write);
      } catch (err) {
        // A clash is resolved by the next pass (collisionCount, §7).
        if (!isAlreadyExists(err)) throw err;
      }
      return;
    case 'updateRevision':
      await revisions.patch(ns, action.name, mergePatch({ revision: action.revision, ...(action.annotations ? { metadata: { annotations: action.annotations } } : {}) }), write);
      return;
    case 'deleteRevision':
      await deleteIgnoringNotFound(() => revisions.delete(ns, action.name, write));
      return;
    case 'createImagePullJob':
    case 'labelRevision':
    case 'deleteImagePullJobs':
      await preDownload(action, ctx);
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
): Promise<void> {
  const ns = ctx.cs.metadata.namespace;
  const uid = ctx.cs.metadata.uid ?? '';
  switch (action.kind) {
    case 'createImagePullJob':
      try {
        await ctx.client
          .resource<KubeObject>(imagePullJobResource)
          .create(action.job, ns ? { namespace: ns, signal: ctx.signal } : { signal: ctx.signal });
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
        if (action.reason !== 'ImagePullJobsCreated') ctx.logger.debug({ revision: action.name, reason: action.reason }, 'image pre-download skipped for this revision');
      } catch (err) {
        ctx.logger.warn({ err, revision: action.name }, 'marking the revision for image pre-download failed');
      }
      return;
    case 'deleteImagePullJobs': {
      const jobs = ctx.imagePullJobs;
      if (!jobs || jobs.alreadyCleaned(ctx.key, uid, action.revision)) return;
      try {
        const deleted = await deleteImagePullJobs(ctx.client, ns, action.names, uid, ctx.signal);
        if (deleted.length) {
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

/** Runs a write; on failure records a Warning Event (`message: error`, §10.3) and rethrows. */
async function withWarning(ctx: ExecutionContext, reason: string, action: string, message: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    // A lost race is replanned, not reported.
    if (writeOutcome(err) !== 'conflict') ctx.recorder.event(ctx.cs, 'Warning', reason, action, `${message}: ${errorMessage(err)}`);
    throw err;
  }
}

/**
 * A PVC delete, expected until the PVC cache shows it terminating or gone: a pass planned from a
 * cache that still lists the claim as live would reuse its instance id and, the claim existing,
 * create the replacement pod without one; the claim then goes and the pod never schedules.
 */
async function deleteClaim(ctx: ExecutionContext, name: string, message: string, call: () => Promise<unknown>): Promise<void> {
  const expected = claimExpectation(name);
  ctx.expectations.expect(ctx.key, 'delete', expected);
  try {
    await withWarning(ctx, 'FailedDelete', 'Delete', message, async () => {
      try {
        await call();
      } catch (err) {
        if (!isNotFound(err)) throw err;
        ctx.expectations.observe(ctx.key, 'delete', expected); // gone before we asked
      }
    });
  } catch (err) {
    // Not deleted: no event of this delete is coming.
    ctx.expectations.observe(ctx.key, 'delete', expected);
    throw err;
  }
}

async function deleteIgnoringNotFound(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
