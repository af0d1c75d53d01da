// Pod predicates as OpenKruise's CloneSet defines them: active, claimed, update-ready, ready, available,
// lifecycle state, revision match, instance id, specified-delete.
import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { phaseOf, readLifecycle, typeOf } from '@cloneset-suite/podopslifecycle/protocol';
import {
  INPLACE_UPDATE_READY,
  INSTANCE_ID_LABEL,
  LIFECYCLE_STATE_LABEL,
  LifecycleState,
  REVISION_LABEL,
  SPECIFIED_DELETE_LABEL,
} from '../keys.ts';
import { findIn, someIn } from '../frozen-lists.ts';
import { selectorMatcher } from '../selector.ts';
import { toMillis } from '../time.ts';
import { memoByPod } from './pod-memo.ts';
import type { CloneSetLike } from '../types.ts';
import type { Unavailability } from '../wait.ts';

export function podName(pod: V1Pod): string {
  return pod.metadata?.name ?? '';
}

export function podLabels(pod: V1Pod): Record<string, string> {
  return pod.metadata?.labels ?? {};
}

/** Active: not Succeeded/Failed and not terminating (OpenKruise's pod predicates). */
export function isActive(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

export function getCondition(pod: V1Pod, type: string): V1PodCondition | undefined {
  return findIn(pod.status?.conditions, (c) => c.type === type);
}

/** What the pod's phase and conditions say of its readiness, read once per pod version (pod-memo.ts). */
const readiness = memoByPod((pod: V1Pod) => {
  const ready = getCondition(pod, 'Ready');
  const inPlaceUpdateReady = getCondition(pod, INPLACE_UPDATE_READY);
  return {
    running: pod.status?.phase === 'Running',
    ready: ready?.status === 'True',
    /** When Ready last went True, or undefined (not True, or the zero time). */
    readySinceMs: ready?.status === 'True' ? toMillis(ready.lastTransitionTime) : undefined,
    /** InPlaceUpdateReady True, or absent. */
    inPlaceUpdateReady: !inPlaceUpdateReady || inPlaceUpdateReady.status === 'True',
  };
});

export function isPodReadyCondition(pod: V1Pod): boolean {
  return readiness(pod).ready;
}

/** Time the Ready condition last went True, or undefined (the zero time). */
export function readySinceMs(pod: V1Pod): number | undefined {
  return readiness(pod).readySinceMs;
}

/**
 * update-ready(pod, m): Running, PodReady True for more than m seconds, and the
 * InPlaceUpdateReady condition (if present) True. A missing transition time with
 * m > 0 counts as "not yet long enough", the conservative reading.
 */
export function isUpdateReady(pod: V1Pod, minReadySeconds: number, nowMs: number): boolean {
  return updateUnreadiness(pod, minReadySeconds, nowMs) === undefined;
}

/** Why a pod is not update-ready, the first question it fails; undefined (no allocation) when it is. */
function updateUnreadiness(pod: V1Pod, minReadySeconds: number, nowMs: number): Unavailability | undefined {
  const r = readiness(pod);
  if (!r.running) return { cause: 'phase', phase: pod.status?.phase, scheduled: !!pod.spec?.nodeName };
  if (!r.ready) return { cause: 'notReady' };
  if (!r.inPlaceUpdateReady) return { cause: 'inPlaceUpdate', status: getCondition(pod, INPLACE_UPDATE_READY)?.status ?? '' };
  if (minReadySeconds > 0) {
    const since = r.readySinceMs;
    if (since === undefined) return { cause: 'minReadySeconds', minReadySeconds };
    const availableAt = since + minReadySeconds * 1000;
    if (availableAt >= nowMs) return { cause: 'minReadySeconds', minReadySeconds, readyForSeconds: Math.max(0, Math.floor((nowMs - since) / 1000)), availableInMs: availableAt - nowMs + 1 };
  }
  return undefined;
}

export function lifecycleState(pod: V1Pod): string {
  return podLabels(pod)[LIFECYCLE_STATE_LABEL] ?? '';
}

/** States "" and Normal are the only ones that count as serving (OpenKruise's lifecycle state machine). */
export function isLifecycleServing(pod: V1Pod): boolean {
  const s = lifecycleState(pod);
  return s === '' || s === LifecycleState.Normal;
}

/** ready: update-ready with m = 0 and a serving lifecycle state (deletion limits). */
export function isReady(pod: V1Pod, nowMs: number): boolean {
  return isUpdateReady(pod, 0, nowMs) && isLifecycleServing(pod);
}

/** Scope of PodOpsLifecycle (README, PodOpsLifecycle). Anything else behaves as under OpenKruise. */
export function isControlled(pod: V1Pod): boolean {
  return podLabels(pod)[KUSION_CONTROL_LABEL] === 'true';
}

/** `cloneset/update (PreCheck)` for each PodOpsLifecycle operation the labels put the pod in. */
function operationsOf(labels: Readonly<Record<string, string>>): string[] {
  const view = readLifecycle(labels);
  return view.ids.map((id) => {
    const idLabels = view.labelsById.get(id) ?? {};
    return `${id}/${typeOf(idLabels) ?? '?'} (${phaseOf(idLabels) ?? 'PreCheck'})`;
  });
}

/**
 * README, CloneSet under PodOpsLifecycle: a controlled pod serves only while it is in no
 * PodOpsLifecycle operation (of any id) and `service-available`. Kept per pod version, so an
 * available pod costs one lookup a pass.
 */
const opsLifecycleUnavailability = memoByPod((pod: V1Pod): Unavailability | undefined => {
  if (!isControlled(pod)) return undefined;
  const labels = podLabels(pod);
  const operations = operationsOf(labels);
  if (operations.length > 0) return { cause: 'podOpsOperation', operations };
  if (labels[POL_LABELS.serviceAvailable] === undefined) return { cause: 'notServiceAvailable' };
  return undefined;
});

/**
 * available: update-ready for more than minReadySeconds and in a serving lifecycle state; for a
 * controlled pod also serving under PodOpsLifecycle (maxUnavailable, availableReplicas).
 * Undefined when the pod is available (without allocating); otherwise the first question it
 * fails, which the waits that name unavailable pods and kubectl-cloneset say.
 */
export function unavailability(pod: V1Pod, minReadySeconds: number, nowMs: number): Unavailability | undefined {
  const notUpdateReady = updateUnreadiness(pod, minReadySeconds, nowMs);
  if (notUpdateReady !== undefined) return notUpdateReady;
  if (!isLifecycleServing(pod)) return { cause: 'lifecycleState', state: lifecycleState(pod) };
  return opsLifecycleUnavailability(pod);
}

/** The one chain of questions above, as a yes or no. */
export function isAvailable(pod: V1Pod, minReadySeconds: number, nowMs: number): boolean {
  return unavailability(pod, minReadySeconds, nowMs) === undefined;
}

export function isPreparingDelete(pod: V1Pod): boolean {
  return lifecycleState(pod) === LifecycleState.PreparingDelete;
}

export function podRevision(pod: V1Pod): string {
  return podLabels(pod)[REVISION_LABEL] ?? '';
}

export function shortHashOf(revisionName: string): string {
  const i = revisionName.lastIndexOf('-');
  return i < 0 ? revisionName : revisionName.slice(i + 1);
}

/** A revision label equals revision X by full name or by the text after the last `-` (OpenKruise's pod predicates). */
export function revisionMatches(label: string, revisionName: string): boolean {
  if (label === '' || revisionName === '') return false;
  return label === revisionName || sameShortHash(label, revisionName);
}

/** shortHashOf(a) === shortHashOf(b) without cutting either string: every pass asks it of every pod. */
function sameShortHash(a: string, b: string): boolean {
  const fromA = a.lastIndexOf('-') + 1;
  const fromB = b.lastIndexOf('-') + 1;
  const length = a.length - fromA;
  if (length !== b.length - fromB) return false;
  for (let i = 0; i < length; i++) {
    if (a.charCodeAt(fromA + i) !== b.charCodeAt(fromB + i)) return false;
  }
  return true;
}

export function isPodAtRevision(pod: V1Pod, revisionName: string): boolean {
  return revisionMatches(podRevision(pod), revisionName);
}

export function instanceIdOf(obj: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return obj.metadata?.labels?.[INSTANCE_ID_LABEL];
}

/** specified-delete: the label with any value, or listed in podsToDelete (OpenKruise's pod predicates). */
export function isSpecifiedDelete(pod: V1Pod, podsToDelete: ReadonlySet<string> | readonly string[]): boolean {
  if (Object.hasOwn(podLabels(pod), SPECIFIED_DELETE_LABEL)) return true;
  const name = podName(pod);
  return Array.isArray(podsToDelete) ? podsToDelete.includes(name) : (podsToDelete as ReadonlySet<string>).has(name);
}

export function maxRestartCount(pod: V1Pod): number {
  let max = 0;
  for (const s of pod.status?.containerStatuses ?? []) max = Math.max(max, s.restartCount);
  return max;
}

// ---- ownership and claiming (OpenKruise's pod predicates; OpenKruise's controller mechanics) ----

export function isOwnedBy(pod: V1Pod, uid: string): boolean {
  return someIn(pod.metadata?.ownerReferences, (r) => r.uid === uid);
}

export interface PodClaim {
  /** Active, owned, matching the selector: the pods every rule acts on. */
  claimed: V1Pod[];
  /** Owned but inactive (terminating, Succeeded, Failed): kept for PVC and name checks. */
  inactive: V1Pod[];
  /** Active, controlled by this CloneSet, no longer matching: remove our ownerRef. */
  toRelease: V1Pod[];
  /** Active, matching, owned only through a non-controller ref: make it the controller ref. */
  toAdopt: V1Pod[];
}

/**
 * Split the pods listed for the CloneSet (by ownerRef UID) into claimed and released. Orphans are
 * never adopted (as OpenKruise: a released pod keeps running): pods without any ref to us are ignored. Nothing is
 * adopted or released while the CloneSet is being deleted.
 */
export function classifyPods(cs: CloneSetLike, pods: readonly V1Pod[]): PodClaim {
  const uid = cs.metadata.uid ?? '';
  const deleting = !!cs.metadata.deletionTimestamp;
  const out: PodClaim = { claimed: [], inactive: [], toRelease: [], toAdopt: [] };
  const matchesSelector = selectorMatcher(cs.spec.selector);
  for (const pod of pods) {
    const refs = pod.metadata?.ownerReferences;
    if (!isOwnedBy(pod, uid)) continue;
    if (!isActive(pod)) {
      out.inactive.push(pod);
      continue;
    }
    const isController = someIn(refs, (r) => r.uid === uid && r.controller === true);
    const otherController = someIn(refs, (r) => r.controller === true && r.uid !== uid);
    const matches = matchesSelector(podLabels(pod));
    if (matches) {
      if (isController) out.claimed.push(pod);
      else if (!otherController && !deleting) {
        out.toAdopt.push(pod);
        out.claimed.push(pod);
      }
    } else if (isController && !deleting) {
      out.toRelease.push(pod);
    }
  }
  return out;
}
