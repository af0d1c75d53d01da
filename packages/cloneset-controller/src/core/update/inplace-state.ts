// In-place update records on the pod (OpenKruise's in-place update): the state annotation, the grace
// annotation, and completion detection from container statuses.
import type { V1Pod } from '@kubernetes/client-node';
import {
  INPLACE_UPDATE_GRACE_ANNOTATION,
  INPLACE_UPDATE_GRACE_ANNOTATION_LEGACY,
  INPLACE_UPDATE_STATE_ANNOTATION,
  INPLACE_UPDATE_STATE_ANNOTATION_LEGACY,
} from '../keys.ts';
import { findIn } from '../frozen-lists.ts';
import { resizeApplied } from './resize.ts';
import { rfc3339 } from '../time.ts';
import { memoByPod } from '../pods/pod-memo.ts';

/** One batch of containers whose spec was patched, and when (metav1.Time, whole seconds). */
export interface ContainerBatch {
  timestamp: string;
  containers: string[];
}

/** `apps.kruise.io/inplace-update-state` (the fields the planners write and read). */
export interface InPlaceUpdateState {
  revision: string;
  updateTimestamp: string;
  updateImages?: boolean;
  /** A resize (pods/resize) is part of the update: complete once the status reports it. */
  updateResources?: boolean;
  lastContainerStatuses?: Record<string, LastContainerStatus>;
  /** One entry per spec patch, as OpenKruise records it (OpenKruise's in-place update). */
  containerBatchesRecord?: ContainerBatch[];
}

/**
 * A container's status when its new image was written. OpenKruise records the imageID only;
 * the containerID is ours (OpenKruise's Go types ignore the extra field when it reads the state).
 */
export interface LastContainerStatus {
  imageID?: string;
  containerID?: string;
}

/** `apps.kruise.io/inplace-update-grace`: the pending spec during the grace period. */
export interface InPlaceUpdateGrace {
  revision: string;
  containerImages?: Record<string, string>;
  graceSeconds: number;
}

function parse(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isOptional = (x: unknown, check: (v: unknown) => boolean): boolean => x === undefined || check(x);
const isStringMap = (x: unknown): boolean => isRecord(x) && Object.values(x).every((v) => typeof v === 'string');

/** The shape the planners read; anything else (another writer's garbage) reads as absent. */
function isUpdateState(x: unknown): x is InPlaceUpdateState {
  return (
    isRecord(x) &&
    typeof x.revision === 'string' &&
    isOptional(x.updateTimestamp, (v) => typeof v === 'string') &&
    isOptional(x.updateResources, (v) => typeof v === 'boolean') &&
    isOptional(x.lastContainerStatuses, (v) => isRecord(v) && Object.values(v).every(isRecord)) &&
    isOptional(x.containerBatchesRecord, (v) => Array.isArray(v) && v.every((b) => isRecord(b) && Array.isArray(b.containers)))
  );
}

function isGrace(x: unknown): x is InPlaceUpdateGrace {
  return isRecord(x) && typeof x.revision === 'string' && typeof x.graceSeconds === 'number' && Number.isFinite(x.graceSeconds) && isOptional(x.containerImages, isStringMap);
}

/** The first of `keys` the pod has an annotation under (OpenKruise's key before its legacy one). */
function presentKey(pod: V1Pod, keys: readonly string[]): string | undefined {
  const a = pod.metadata?.annotations ?? {};
  return keys.find((k) => Object.hasOwn(a, k));
}

export function updateStateKey(pod: V1Pod): string | undefined {
  return presentKey(pod, [INPLACE_UPDATE_STATE_ANNOTATION, INPLACE_UPDATE_STATE_ANNOTATION_LEGACY]);
}

/** The state annotation, parsed once per pod version (pod-memo.ts): read on every pass. */
export const readUpdateState = memoByPod((pod: V1Pod): InPlaceUpdateState | undefined => {
  const key = updateStateKey(pod);
  const state = key === undefined ? undefined : parse(pod.metadata?.annotations?.[key]);
  return isUpdateState(state) ? state : undefined;
});

export function graceAnnotationKey(pod: V1Pod): string | undefined {
  return presentKey(pod, [INPLACE_UPDATE_GRACE_ANNOTATION, INPLACE_UPDATE_GRACE_ANNOTATION_LEGACY]);
}

export const readGrace = memoByPod((pod: V1Pod): InPlaceUpdateGrace | undefined => {
  const key = graceAnnotationKey(pod);
  const grace = key === undefined ? undefined : parse(pod.metadata?.annotations?.[key]);
  return isGrace(grace) ? grace : undefined;
});

/** In-place annotation keys present on the pod whose value the planners cannot read. */
export function malformedInPlaceAnnotations(pod: V1Pod): { grace?: string; state?: string } {
  const graceKey = graceAnnotationKey(pod);
  const stateKey = updateStateKey(pod);
  return {
    ...(graceKey !== undefined && !readGrace(pod) ? { grace: graceKey } : {}),
    ...(stateKey !== undefined && !readUpdateState(pod) ? { state: stateKey } : {}),
  };
}

/** Image statuses recorded at the moment the new images are written. */
export function lastContainerStatuses(pod: V1Pod, containers: readonly string[]): Record<string, LastContainerStatus> {
  const out: Record<string, LastContainerStatus> = {};
  for (const name of containers) {
    const s = pod.status?.containerStatuses?.find((c) => c.name === name);
    out[name] = { ...(s?.imageID ? { imageID: s.imageID } : {}), ...(s?.containerID ? { containerID: s.containerID } : {}) };
  }
  return out;
}

export function stateJson(state: InPlaceUpdateState): string {
  return JSON.stringify(state);
}

/**
 * The state written when the spec is patched now (`images`, possibly none) or, with
 * `deferred`, when a grace period holds the images back: then no batch is recorded yet.
 */
export function newUpdateState(revision: string, nowMs: number, pod: V1Pod, images: Record<string, string>, deferred = false): InPlaceUpdateState {
  const names = Object.keys(images);
  const state: InPlaceUpdateState = {
    revision,
    updateTimestamp: rfc3339(nowMs),
    ...(names.length > 0 ? { updateImages: true, lastContainerStatuses: lastContainerStatuses(pod, names) } : {}),
  };
  return deferred ? state : withBatch(state, names, nowMs);
}

/** The state with one more containerBatchesRecord entry for the containers patched now. */
export function withBatch(state: InPlaceUpdateState, containers: readonly string[], nowMs: number): InPlaceUpdateState {
  const batch: ContainerBatch = { timestamp: rfc3339(nowMs), containers: [...containers].sort() };
  return { ...state, containerBatchesRecord: [...(state.containerBatchesRecord ?? []), batch] };
}

/** An image without a tag or digest is compared as `:latest` (OpenKruise's in-place update). */
export function normaliseImage(image: string): string {
  if (image.includes('@')) return image;
  const slash = image.lastIndexOf('/');
  return image.slice(slash + 1).includes(':') ? image : `${image}:latest`;
}

/**
 * Completion (OpenKruise's in-place update): no grace pending, a resize applied (the status reports the spec's cpu
 * and memory), and, for every recorded container, the status imageID changed, the status image
 * equals the spec image, or the container was re-created (its containerID is not the recorded one).
 * The last is ours: a new tag of the same image keeps the imageID, and containerd's CRI reports
 * the image by a tag it holds for that image, not necessarily the one the spec names (seen: spec
 * nginx:mainline-alpine, status nginx:alpine), so on a real node only the restart shows it landed. OpenKruise sees it through kruise-daemon
 * (the container hashes of its runtime-containers-meta annotation), which this controller has not.
 */
export const isInPlaceUpdateComplete = memoByPod((pod: V1Pod): boolean => {
  if (graceAnnotationKey(pod) !== undefined) return false;
  const state = readUpdateState(pod);
  if (!state) return true;
  if (state.updateResources && !resizeApplied(pod)) return false;
  for (const [name, last] of Object.entries(state.lastContainerStatuses ?? {})) {
    const status = findIn(pod.status?.containerStatuses, (c) => c.name === name);
    if (!status) return false;
    const specImage = findIn(pod.spec?.containers, (c) => c.name === name)?.image;
    const idChanged = !!status.imageID && status.imageID !== last.imageID;
    const sameImage = specImage !== undefined && normaliseImage(status.image) === normaliseImage(specImage);
    const recreated = !!last.containerID && !!status.containerID && status.containerID !== last.containerID;
    if (!idChanged && !sameImage && !recreated) return false;
  }
  return true;
});
