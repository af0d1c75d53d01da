// Image pre-download for in-place updates (OpenKruise's PreDownloadImageForInPlaceUpdate, only where the ImagePullJob CRD is served): while a rollout is
// under way, ask OpenKruise's node daemon (through ImagePullJobs) to pull the new images on
// the nodes of the pods still at the old revision. The planner only decides; the shell
// finds out whether the ImagePullJob CRD is served and does the writes.
import { IMAGE_PREDOWNLOAD_DEFAULTS, KRUISE_ANNOTATIONS, KRUISE_LABELS, tryParseIntOrPercent, scalePercent } from '@cloneset-suite/api-types';
import type { LabelSelector } from '@cloneset-suite/api-types';
import { revisionNameOf, type PlanContext } from '../context.ts';
import type { ImagePullJobManifest, PreDownloadAction, PreDownloadIgnoreReason } from '../plan.ts';
import { revisionDiff } from '../update/update-mode.ts';
import { REVISION_HASH_LABEL, REVISION_LABEL } from '../keys.ts';
import { ownerRefTo } from '../owner-ref.ts';
import { shortHashOf } from '../pods/pod-state.ts';
import { templateOfRevision } from '../revisions/revisions.ts';

export const IMAGE_PREDOWNLOAD_CREATED_LABEL = KRUISE_LABELS.imagePreDownloadCreated;
export const IMAGE_PREDOWNLOAD_IGNORED_LABEL = KRUISE_LABELS.imagePreDownloadIgnored;
export const IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION = KRUISE_ANNOTATIONS.imagePreDownloadParallelism;
export const IMAGE_PREDOWNLOAD_TIMEOUT_ANNOTATION = KRUISE_ANNOTATIONS.imagePreDownloadTimeoutSeconds;
export const IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_ANNOTATION = KRUISE_ANNOTATIONS.imagePreDownloadMinUpdatedReadyPods;

/** Pre-download is skipped for CloneSets this small (replicas ≤ 3, as in OpenKruise). */
export const PREDOWNLOAD_MIN_REPLICAS_EXCLUSIVE = 3;
/** What kruise puts in every job it creates for a workload (pullPolicy.backoffLimit, TTL). */
const JOB_BACKOFF_LIMIT = 1;
const JOB_TTL_SECONDS_AFTER_FINISHED = 600;

export interface PreDownloadOptions {
  /** Whether the apiserver serves imagepulljobs.apps.kruise.io (discovered by the shell). */
  crdPresent: boolean;
}

/** A non-negative integer annotation, or the default when absent or not one. */
function intAnnotation(value: string | undefined, fallback: number): number {
  if (value === undefined || !/^[0-9]+$/.test(value.trim())) return fallback;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) && n <= 2147483647 ? n : fallback;
}

/** min-updated-ready-pods as a pod count: int, or % of replicas rounded up; 0 when unset or invalid. */
export function minUpdatedReadyPods(ctx: PlanContext): number {
  const raw = ctx.cs.metadata.annotations?.[IMAGE_PREDOWNLOAD_MIN_UPDATED_READY_ANNOTATION];
  if (raw === undefined) return 0;
  const text = raw.trim();
  const parsed = tryParseIntOrPercent(/^-?[0-9]+$/.test(text) ? Number(text) : text);
  if (!parsed) return 0;
  return Math.max(0, scalePercent(parsed, ctx.knobs.replicas, 'up'));
}

/** status.updatedReadyReplicas, counted only when the status is about this update revision. */
function updatedReadyReplicas(ctx: PlanContext): number {
  const status = ctx.cs.status ?? {};
  return status.updateRevision === revisionNameOf(ctx.updateRevision) ? (status.updatedReadyReplicas ?? 0) : 0;
}

function ignoreReason(ctx: PlanContext): PreDownloadIgnoreReason | undefined {
  if (ctx.updateType === 'ReCreate') return 'ReCreate';
  if (ctx.knobs.replicas <= PREDOWNLOAD_MIN_REPLICAS_EXCLUSIVE) return 'TooFewReplicas';
  if (ctx.knobs.partition === 0 && ctx.knobs.maxUnavailable >= ctx.knobs.replicas) return 'OneBatch';
  return undefined;
}

/** Container name -> new image between the current and update revisions, or undefined when not in-place-able. */
function changedImages(ctx: PlanContext): Record<string, string> | undefined {
  return revisionDiff(ctx, ctx.currentRevision, ctx.updateRevision)?.images;
}

/** Every job name a kept revision could have had: `<revision>-<container>` per container. */
function jobNames(ctx: PlanContext): string[] {
  return ctx.revisions.flatMap((rev) =>
    (templateOfRevision(rev).spec?.containers ?? []).map((c) => jobName(revisionNameOf(rev), c.name)),
  );
}

function jobName(revision: string, container: string): string {
  return `${revision}-${container}`;
}

function jobFor(ctx: PlanContext, container: string, image: string): ImagePullJobManifest {
  const { cs } = ctx;
  const update = ctx.updateRevision;
  const updateName = revisionNameOf(update);
  const hash = update.metadata?.labels?.[REVISION_HASH_LABEL] ?? shortHashOf(updateName);
  const selector = cs.spec.selector;
  // Old-revision pods: the CloneSet's selector, minus pods labelled with the update
  // revision in either form (full name, or the bare hash under CloneSetShortHash).
  const podSelector: LabelSelector = {
    ...(selector.matchLabels ? { matchLabels: { ...selector.matchLabels } } : {}),
    matchExpressions: [...(selector.matchExpressions ?? []), { key: REVISION_LABEL, operator: 'NotIn', values: [updateName, hash] }],
  };
  const pullSecrets = (cs.spec.template.spec?.imagePullSecrets ?? []).map((s) => s.name).filter((n): n is string => !!n);
  const annotations = cs.metadata.annotations ?? {};
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'ImagePullJob',
    metadata: {
      name: jobName(updateName, container),
      ...(cs.metadata.namespace ? { namespace: cs.metadata.namespace } : {}),
      // Everything a CloneSet owns matches its selector: the template labels, plus the revision hash.
      labels: { ...(cs.spec.template.metadata?.labels ?? {}), [REVISION_HASH_LABEL]: hash },
      ownerReferences: [ownerRefTo(cs)],
    },
    spec: {
      image,
      ...(pullSecrets.length ? { pullSecrets } : {}),
      podSelector,
      parallelism: intAnnotation(annotations[IMAGE_PREDOWNLOAD_PARALLELISM_ANNOTATION], IMAGE_PREDOWNLOAD_DEFAULTS.parallelism),
      pullPolicy: {
        timeoutSeconds: intAnnotation(annotations[IMAGE_PREDOWNLOAD_TIMEOUT_ANNOTATION], IMAGE_PREDOWNLOAD_DEFAULTS.timeoutSeconds),
        backoffLimit: JOB_BACKOFF_LIMIT,
      },
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: JOB_TTL_SECONDS_AFTER_FINISHED },
    },
  };
}

/**
 * The pre-download step of a pass (OpenKruise's image pre-download). Nothing unless the
 * PreDownloadImageForInPlaceUpdate gate is on and the ImagePullJob CRD is served.
 * - current == update: delete the jobs this CloneSet owns.
 * - otherwise, once updatedReadyReplicas ≥ min-updated-ready-pods and the update revision
 *   is not yet marked: mark it ignored (ReCreate, replicas ≤ 3, one batch, not in-place-able),
 *   or create one job per changed container image and mark it created.
 */
export function planImagePreDownload(ctx: PlanContext, opts: PreDownloadOptions): PreDownloadAction[] {
  if (!ctx.gates.PreDownloadImageForInPlaceUpdate || !opts.crdPresent) return [];
  if (ctx.cs.metadata.deletionTimestamp) return [];
  const updateName = revisionNameOf(ctx.updateRevision);
  if (revisionNameOf(ctx.currentRevision) === updateName) return [{ kind: 'deleteImagePullJobs', revision: updateName, names: jobNames(ctx) }];
  if (updatedReadyReplicas(ctx) < minUpdatedReadyPods(ctx)) return [];
  const marks = ctx.updateRevision.metadata?.labels ?? {};
  if (Object.hasOwn(marks, IMAGE_PREDOWNLOAD_CREATED_LABEL) || Object.hasOwn(marks, IMAGE_PREDOWNLOAD_IGNORED_LABEL)) return [];
  const ignored = (reason: PreDownloadIgnoreReason): PreDownloadAction[] => [
    { kind: 'labelRevision', name: updateName, labels: { [IMAGE_PREDOWNLOAD_IGNORED_LABEL]: 'true' }, reason },
  ];
  const skip = ignoreReason(ctx);
  if (skip) return ignored(skip);
  const images = changedImages(ctx);
  if (!images) return ignored('NotInPlace');
  // In container order (the in-place diff walks the containers in order).
  const actions: PreDownloadAction[] = Object.entries(images).map(([container, image]) => ({
    kind: 'createImagePullJob',
    name: jobName(updateName, container),
    container,
    image,
    job: jobFor(ctx, container, image),
  }));
  actions.push({ kind: 'labelRevision', name: updateName, labels: { [IMAGE_PREDOWNLOAD_CREATED_LABEL]: 'true' }, reason: 'ImagePullJobsCreated' });
  return actions;
}
