// What a pass waits for, as data: one entry per reason, made by the planner function that decides
// to wait (README, "Why the controller waits"), naming the pods concerned, the cause, and what
// would release it. Everything that explains a wait renders this list with waitMessage
// (waits/wait-text.ts): the PodsHeld, FailedScale and FailedUpdate conditions, the Events, the debug log
// line of each pass, and `kubectl cloneset plan`.

/** Why a pod is not available (pods/availability.ts finds it). */
export type Unavailability =
  /** Not Running; `scheduled`: whether the pod has a node yet. */
  | { cause: 'phase'; phase: string | undefined; scheduled: boolean }
  | { cause: 'notReady' }
  /** The InPlaceUpdateReady gate is not True: an in-place update is under way. */
  | { cause: 'inPlaceUpdate'; status: string }
  /**
   * Ready, but not for longer than minReadySeconds. `availableInMs`: when it will count (one
   * millisecond past the mark, as the test is strict); absent when Ready has no transition time.
   */
  | { cause: 'minReadySeconds'; minReadySeconds: number; readyForSeconds?: number; availableInMs?: number }
  /** An OpenKruise lifecycle state other than Normal. */
  | { cause: 'lifecycleState'; state: string }
  /** A controlled pod in PodOpsLifecycle operations: `<id>/<type> (<phase>)` each. */
  | { cause: 'podOpsOperation'; operations: string[] }
  /** A controlled pod not yet `service-available`. */
  | { cause: 'notServiceAvailable' };

/** A pod the maxUnavailable budget counts as unavailable now, and why. */
export interface UnavailablePod {
  pod: string;
  why: Unavailability;
}

export type Wait =
  // Held by someone else (the PodsHeld condition and a Normal Event).
  /** An OpenKruise lifecycle hook: its owner removes the finalizers or labels to release the pods. */
  | { kind: 'lifecycleHook'; hook: 'preDelete' | 'inPlaceUpdate'; state: string; pods: string[]; finalizers: string[]; labels: Record<string, string> }
  /** A PodTransitionRule rejecting controlled pods in PreCheck of the CloneSet's operation; `rule` and `reason` may be empty. */
  | { kind: 'podTransitionRule'; transitionRule: string; rule: string; reason: string; stage: 'PreCheck'; operationTypes: string[]; pods: string[] }
  /** `operation-type/cloneset` changed after operate was granted: released when it says again what the CloneSet began. */
  | { kind: 'operationTypeLabel'; label: string; pods: string[] }
  // The controller's own waits, said on FailedScale or FailedUpdate (and by a Warning Event).
  /** Terminating pods whose instance ids (and PVCs) the replacements take: released when they are gone. */
  | { kind: 'terminatingPods'; pods: string[] }
  /** No free instance id for `short` of `asked` new pods; `found` are created. */
  | { kind: 'instanceIdsExhausted'; cloneSet: string; short: number; asked: number; found: number; idSpace: number; idLength: number }
  /** The selector would release the pods about to be created (`cause` says how): released by a selector that matches them. */
  | { kind: 'selectorExcludesPods'; pods: string[]; cause: string }
  /** The node answered a pod's resize Infeasible or Deferred: held (`heldBecause`), or re-created at `recreateAt`. */
  | { kind: 'resizeStalled'; pods: string[]; answer: 'Infeasible' | 'Deferred'; nodeMessage: string; then: { held: string } | { recreateAt: string } }
  // Waits of the rollout itself (said by the debug line and kubectl cloneset).
  /** The CloneSet is being deleted: no sync step runs. */
  | { kind: 'deleting' }
  /** spec.updateStrategy.paused: released by resuming the rollout. */
  | { kind: 'paused'; pods: string[] }
  /** updateStrategy OnDelete: each pod moves to `revision` only when deleted. */
  | { kind: 'onDelete'; pods: string[]; revision: string }
  /** The pass writes lifecycle states and labels first (refresh); the next pass chooses pods to update. */
  | { kind: 'refresh'; pods: string[] }
  /** The Scale step wrote this pass, so the Update step runs on a later one. */
  | { kind: 'scaleFirst'; pods: string[] }
  /** The partition keeps these pods at their revisions (`byRevision`): released by lowering it. */
  | { kind: 'partition'; partition: number; pods: string[]; byRevision: Record<string, string[]> }
  /**
   * The maxUnavailable budget (`maxUnavailable` pods, resolved) is used up by the pods unavailable
   * now and the pods this pass takes (`taking`): released as they become available.
   */
  | { kind: 'maxUnavailable'; pods: string[]; maxUnavailable: number; unavailable: UnavailablePod[]; taking: string[] }
  /** Scale-out limited by scaleStrategy.maxUnavailable: `wanted` pods to create, `limit` now. */
  | { kind: 'scaleUpLimited'; wanted: number; limit: number; scaleMaxUnavailable: number; unavailable: number }
  /** Scale-in of `count` pods waits until the pods being deleted (specified or PreparingDelete) are gone. */
  | { kind: 'scaleInBlocked'; count: number; pods: string[] }
  /** Ready, not yet for minReadySeconds: it counts as available in `availableInSeconds`. */
  | { kind: 'minReadySeconds'; pods: string[]; why: Unavailability; availableInSeconds: number }
  /** A controlled pod in the CloneSet's operation `operationType`, waiting in `phase` for the lifecycle to grant operate. */
  | { kind: 'podOpsLifecycle'; pods: string[]; operationType: string; phase: string }
  /** A cooperation controller's protection finalizers keep the pod: released when they are removed. */
  | { kind: 'protectionFinalizer'; pods: string[]; operationType: string; phase: string; finalizers: string[] };

export type WaitKind = Wait['kind'];

/** The CloneSet condition a wait is said on, if any (OpenKruise sets Failed* only for errors: holds go on PodsHeld). */
export type WaitCondition = 'PodsHeld' | 'FailedScale' | 'FailedUpdate';

const CONDITION_OF: Readonly<Record<WaitKind, WaitCondition | undefined>> = {
  lifecycleHook: 'PodsHeld',
  podTransitionRule: 'PodsHeld',
  operationTypeLabel: 'PodsHeld',
  terminatingPods: 'FailedScale',
  instanceIdsExhausted: 'FailedScale',
  selectorExcludesPods: 'FailedScale',
  resizeStalled: 'FailedUpdate',
  deleting: undefined,
  paused: undefined,
  onDelete: undefined,
  refresh: undefined,
  scaleFirst: undefined,
  partition: undefined,
  maxUnavailable: undefined,
  scaleUpLimited: undefined,
  scaleInBlocked: undefined,
  minReadySeconds: undefined,
  podOpsLifecycle: undefined,
  protectionFinalizer: undefined,
};

export function conditionOf(wait: Wait): WaitCondition | undefined {
  return CONDITION_OF[wait.kind];
}

/** The PodsHeld reason of a hold (the condition's reason is its first hold's). */
export const HOLD_REASONS = { lifecycleHook: 'LifecycleHook', podTransitionRule: 'PodTransitionRule', operationTypeLabel: 'OperationTypeMismatch' } as const;

export type Hold = Extract<Wait, { kind: keyof typeof HOLD_REASONS }>;

export function isHold(wait: Wait): wait is Hold {
  return wait.kind in HOLD_REASONS;
}

/** The pods a wait names (none for a count-only wait). */
export function podsOf(wait: Wait): readonly string[] {
  return 'pods' in wait ? wait.pods : [];
}
