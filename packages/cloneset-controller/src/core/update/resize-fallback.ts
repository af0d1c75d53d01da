// A resize the node does not apply (README, "In-place resize"): the kubelet answers with the pod
// condition PodResizePending, reason Infeasible (it will never resize the pod) or Deferred (no room
// on the node now, tried again later). Infeasible at once, Deferred once it has lasted the
// deadline, the pod stops waiting for it: under InPlaceIfPossible it is re-created at its revision
// (the scheduler finds it a node with room), as a change that cannot be made in place would be;
// under InPlaceOnly, OnDelete, or while paused it is held. Either way the FailedUpdate condition
// says so while it lasts, and a Warning Event when it begins.
import type { V1Pod } from '@kubernetes/client-node';
import type { PlanContext } from '../context.ts';
import { readUpdateState } from './inplace-state.ts';
import { LifecycleState } from '../keys.ts';
import { PASS_LIMIT_REQUEUE_MS, type PassBudget } from '../pass-limits.ts';
import type { PlanAction } from '../plan.ts';
import { getCondition, lifecycleState, podName, podRevision } from '../pods/pod-state.ts';
import { recreateMark } from './recreate-mark.ts';
import { resizeApplied } from './resize.ts';
import { toMillis } from '../time.ts';
import type { Wait } from '../wait.ts';
import { waitEvent } from '../waits/wait-events.ts';
import { waitMessage } from '../waits/wait-text.ts';

/** How long a Deferred resize may wait before the pod is re-created (`--inplace-resize-deferred-timeout`). */
export const DEFAULT_RESIZE_DEFERRED_TIMEOUT_MS = 5 * 60_000;

export const RESIZE_PENDING_CONDITION = 'PodResizePending';

export interface ResizeStall {
  reason: 'Infeasible' | 'Deferred';
  message: string;
}

/**
 * The resize of a pod in its in-place update that the node answered Infeasible, or Deferred for
 * at least `deferredTimeoutMs`; `dueInMs` when a Deferred one falls due later. An answer for an
 * earlier generation of the pod (before the latest resize) is not about this resize.
 */
export function resizeStall(pod: V1Pod, nowMs: number, deferredTimeoutMs: number): { stall: ResizeStall } | { dueInMs: number } | undefined {
  if (lifecycleState(pod) !== LifecycleState.Updating || !readUpdateState(pod)?.updateResources || resizeApplied(pod)) return undefined;
  const pending = getCondition(pod, RESIZE_PENDING_CONDITION);
  if (pending?.status !== 'True') return undefined;
  const generation = pod.metadata?.generation;
  if (generation !== undefined && pending.observedGeneration !== undefined && pending.observedGeneration < generation) return undefined;
  const message = pending.message ?? '';
  if (pending.reason === 'Infeasible') return { stall: { reason: 'Infeasible', message } };
  if (pending.reason !== 'Deferred') return undefined;
  const since = toMillis(pending.lastTransitionTime) ?? nowMs;
  const dueInMs = since + deferredTimeoutMs - nowMs;
  return dueInMs <= 0 ? { stall: { reason: 'Deferred', message } } : { dueInMs };
}

export interface ResizeFallbacks {
  actions: PlanAction[];
  waits: Wait[];
  /** Pods the Update step re-creates for it (their PodOpsLifecycle operation is kept). */
  chosen: string[];
  requeueAfterMs?: number;
}

/** Why a stalled pod is held rather than re-created, or undefined when it is re-created. */
function heldBecause(ctx: PlanContext): string | undefined {
  if (ctx.updateType === 'InPlaceOnly') return 'InPlaceOnly never re-creates a pod: change the resources in the template, or the update strategy';
  if (ctx.updateType === 'OnDelete') return 'under OnDelete a pod is replaced only when it is deleted';
  if (ctx.cs.spec.updateStrategy?.paused) return 'the rollout is paused';
  return undefined;
}

export function planResizeFallbacks(ctx: PlanContext, budget: PassBudget): ResizeFallbacks {
  const out: ResizeFallbacks = { actions: [], waits: [], chosen: [] };
  const timeout = ctx.resizeDeferredTimeoutMs ?? DEFAULT_RESIZE_DEFERRED_TIMEOUT_MS;
  const held = heldBecause(ctx);
  const failedUpdate = ctx.cs.status?.conditions?.find((c) => c.type === 'FailedUpdate' && c.status === 'True')?.message ?? '';
  for (const pod of ctx.pods) {
    const found = resizeStall(pod, ctx.nowMs, timeout);
    if (!found) continue;
    if ('dueInMs' in found) {
      out.requeueAfterMs = Math.min(out.requeueAfterMs ?? Infinity, found.dueInMs);
      continue;
    }
    const name = podName(pod);
    const stalled = { kind: 'resizeStalled' as const, pods: [name], answer: found.stall.reason, nodeMessage: found.stall.message };
    if (held !== undefined) {
      const wait: Wait = { ...stalled, then: { held } };
      out.waits.push(wait);
      // Said once when the hold begins; the condition says it while it lasts.
      const event = waitEvent(wait);
      if (event && !failedUpdate.includes(waitMessage(wait))) out.actions.push(event);
      continue;
    }
    const revision = podRevision(pod);
    const wait: Wait = { ...stalled, then: { recreateAt: revision } };
    out.waits.push(wait);
    out.chosen.push(name);
    if (!budget.take()) {
      out.requeueAfterMs = Math.min(out.requeueAfterMs ?? Infinity, PASS_LIMIT_REQUEUE_MS);
      continue;
    }
    const why = waitEvent(wait);
    const gated = recreateMark(pod, revision, why && { type: why.type, reason: why.reason, message: why.message });
    out.actions.push(...gated.actions);
    out.waits.push(...gated.waits);
  }
  return out;
}
