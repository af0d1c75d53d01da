// Status (as OpenKruise computes it) with failure conditions kept true (cleared on
// the next successful pass) and the v1.9 Progressing condition.
import type { V1Pod } from '@kubernetes/client-node';
import { PODS_HELD_CONDITION, heldCondition } from './held-condition.ts';
import { expectedUpdatedCount } from './expected-updated.ts';
import { MAX_INT32 } from '../keys.ts';
import type { Hold } from '../wait.ts';
import { isAvailable, isPodAtRevision, isUpdateReady, readySinceMs } from '../pods/pod-state.ts';
import { selectorToString } from '../selector.ts';
import { rfc3339, toMillis } from '../time.ts';
import type { CloneSetLike, CloneSetStatusLike, StatusCondition } from '../types.ts';

export interface StatusInput {
  cs: CloneSetLike;
  /** Active claimed pods. */
  pods: readonly V1Pod[];
  updateRevision: string;
  /** The current revision as resolved (OpenKruise's ControllerRevisions): previous status value if still listed, else update. */
  currentRevision: string;
  collisionCount: number;
  /** Resolved partition, or undefined when the partition is invalid. */
  partition: number | undefined;
  /**
   * Outcome of this pass per step: a message when it failed, null when it ran and
   * succeeded, undefined when it did not run (the condition is left as it was).
   */
  failures: { FailedScale?: string | null; FailedUpdate?: string | null };
  /** Pods held by a hook or a rule in this pass (the PodsHeld condition); undefined: not looked at. */
  held?: readonly Hold[];
  nowMs: number;
}

export interface StatusResult {
  status: CloneSetStatusLike;
  /** Seconds until the next pod becomes available, or the progress deadline. */
  requeueAfterMs?: number;
}

function setCondition(
  list: StatusCondition[],
  next: { type: string; status: string; reason?: string; message?: string },
  nowMs: number,
  { refreshMessage = false } = {},
): StatusCondition[] {
  const now = rfc3339(nowMs);
  const existing = list.find((c) => c.type === next.type);
  // An unchanged status and reason keeps the condition as it is, message included (v1.9
  // semantics). Refreshing the message would rewrite /status on every failing retry (create
  // errors name a fresh pod each time), and our own status write re-enqueues the CloneSet at
  // once: a hot loop around the rate limiter's backoff. PodsHeld refreshes it: its message
  // changes only when other pods are held, and a stale list of held pods would mislead.
  const sameMessage = !refreshMessage || (existing?.message ?? '') === (next.message ?? '');
  if (existing && existing.status === next.status && (existing.reason ?? '') === (next.reason ?? '') && sameMessage) return list;
  const cond: StatusCondition = {
    type: next.type,
    status: next.status,
    ...(next.reason ? { reason: next.reason } : {}),
    ...(next.message ? { message: next.message } : {}),
    lastTransitionTime: existing && existing.status === next.status ? (existing.lastTransitionTime ?? now) : now,
    lastUpdateTime: now,
  };
  return [...list.filter((c) => c.type !== next.type), cond];
}

export function computeStatus(input: StatusInput): StatusResult {
  const { cs, pods, nowMs } = input;
  const R = cs.spec.replicas ?? 1;
  const minReady = cs.spec.minReadySeconds ?? 0;
  const updated = pods.filter((p) => isPodAtRevision(p, input.updateRevision));
  const ready = (p: V1Pod) => isUpdateReady(p, 0, nowMs);
  const available = (p: V1Pod) => isAvailable(p, minReady, nowMs);
  const isOnDelete = cs.spec.updateStrategy?.type === 'OnDelete';
  const expectedUpdatedReplicas = expectedUpdatedCount(R, isOnDelete, input.partition);
  const replicas = pods.length;
  const updatedReplicas = updated.length;
  // currentRevision advances once every active pod is updated and the count matches (OpenKruise's CloneSet status).
  const currentRevision =
    updatedReplicas === replicas && replicas === R ? input.updateRevision : input.currentRevision;

  const status: CloneSetStatusLike = {
    observedGeneration: cs.metadata.generation ?? 0,
    replicas,
    readyReplicas: pods.filter(ready).length,
    availableReplicas: pods.filter(available).length,
    updatedReplicas,
    updatedReadyReplicas: updated.filter(ready).length,
    updatedAvailableReplicas: updated.filter(available).length,
    expectedUpdatedReplicas,
    updateRevision: input.updateRevision,
    currentRevision,
    collisionCount: input.collisionCount,
    labelSelector: selectorToString(cs.spec.selector),
  };

  let conditions = [...(cs.status?.conditions ?? [])];
  for (const type of ['FailedScale', 'FailedUpdate'] as const) {
    const f = input.failures[type];
    if (typeof f === 'string') conditions = setCondition(conditions, { type, status: 'True', message: f }, nowMs);
    else if (f === null && conditions.some((c) => c.type === type && c.status === 'True')) {
      conditions = setCondition(conditions, { type, status: 'False', reason: 'Succeeded' }, nowMs);
    }
  }

  const held = heldCondition(input.held, conditions.find((c) => c.type === PODS_HELD_CONDITION));
  if (held) conditions = setCondition(conditions, { type: PODS_HELD_CONDITION, ...held }, nowMs, { refreshMessage: true });

  let requeue: number | undefined;
  const deadline = cs.spec.progressDeadlineSeconds;
  if (deadline === undefined || deadline === MAX_INT32) {
    conditions = conditions.filter((c) => c.type !== 'Progressing');
  } else {
    const existing = conditions.find((c) => c.type === 'Progressing');
    let next: { status: string; reason: string; message: string };
    if (
      currentRevision === input.updateRevision &&
      replicas === R &&
      updatedReplicas === R &&
      status.updatedAvailableReplicas === R
    ) {
      next = { status: 'True', reason: 'CloneSetAvailable', message: 'CloneSet is available' };
    } else if (cs.spec.updateStrategy?.paused) {
      next = { status: 'True', reason: 'CloneSetPaused', message: 'CloneSet is paused' };
    } else if (expectedUpdatedReplicas < R && expectedUpdatedReplicas <= (status.updatedAvailableReplicas ?? 0)) {
      next = { status: 'True', reason: 'ProgressPartitionAvailable', message: 'CloneSet has been paused due to partition ready' };
    } else {
      // The deadline runs from entering CloneSetUpdated (OpenKruise's conditions), not from other reasons.
      const since = existing?.reason === 'CloneSetUpdated' ? toMillis(existing.lastUpdateTime) : undefined;
      const exceeded =
        existing?.reason === 'ProgressDeadlineExceeded' || (since !== undefined && since + deadline * 1000 < nowMs);
      if (exceeded) {
        next = {
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: `CloneSet revision ${input.updateRevision} has timed out progressing`,
        };
      } else {
        next = { status: 'True', reason: 'CloneSetUpdated', message: 'CloneSet is progressing' };
        const start = since ?? nowMs;
        requeue = Math.max(1, Math.ceil((start + deadline * 1000 - nowMs) / 1000) + 1);
      }
    }
    conditions = setCondition(conditions, { type: 'Progressing', ...next }, nowMs);
  }
  if (conditions.length > 0) status.conditions = conditions;

  // Requeue when a ready pod will become available.
  if (minReady > 0) {
    for (const p of pods) {
      if (!ready(p) || isUpdateReady(p, minReady, nowMs)) continue;
      const since = readySinceMs(p);
      if (since === undefined) continue;
      const wait = Math.max(1, Math.ceil((since + minReady * 1000 - nowMs) / 1000));
      requeue = requeue === undefined ? wait : Math.min(requeue, wait);
    }
  }
  return requeue === undefined ? { status } : { status, requeueAfterMs: requeue * 1000 };
}

const COUNTERS = [
  'observedGeneration',
  'replicas',
  'readyReplicas',
  'availableReplicas',
  'updatedReplicas',
  'updatedReadyReplicas',
  'updatedAvailableReplicas',
  'expectedUpdatedReplicas',
  'updateRevision',
  'currentRevision',
  'collisionCount',
  'labelSelector',
] as const;

/**
 * Whether writing `next` over `prev` would change anything the controller owns, so a
 * settled CloneSet produces no writes (OpenKruise's status). Condition timestamps alone do not count.
 */
export function statusEquals(prev: CloneSetStatusLike | undefined, next: CloneSetStatusLike): boolean {
  const p = prev ?? {};
  for (const k of COUNTERS) if ((p[k] ?? 0) !== (next[k] ?? 0)) return false;
  const key = (c: StatusCondition) => `${c.type}\u0000${c.status}\u0000${c.reason ?? ''}\u0000${c.message ?? ''}`;
  const a = (p.conditions ?? []).map(key).sort();
  const b = (next.conditions ?? []).map(key).sort();
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
