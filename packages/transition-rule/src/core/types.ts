// Data shapes of the PodTransitionRule engine: what a round reads (pods, the persisted status,
// the in-memory webhook runtime) and what it returns (status, annotations, webhook actions).
import type { PodTransitionRuleSpec, PodTransitionRuleStatus, RuleState, TransitionRuleDetail } from '@cloneset-suite/api-types';

export type LifecycleStage = 'PreCheck' | 'PostCheck';
export const LIFECYCLE_STAGES: readonly LifecycleStage[] = ['PreCheck', 'PostCheck'];

/** The parts of a pod the engine reads (a V1Pod or a cached pod both fit). */
export interface PodView {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly deletionTimestamp?: unknown;
    readonly ownerReferences?: readonly OwnerReference[];
  };
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
}

/** The live object a controller ownerRef names: its UID and how many replicas it wants. */
export interface OwnerReplicas {
  uid: string;
  replicas: number;
}

/**
 * The port through which a round reads pod owners (the shell answers from a cache): the live
 * owner the reference names, or undefined when it is unknown, gone, or not a kind with replicas.
 */
export type OwnerLookup = (namespace: string, owner: OwnerReference) => OwnerReplicas | undefined;

/** One rule's verdict on the pods it evaluated. */
export interface RuleOutcome {
  passed: string[];
  /** pod name -> reason */
  rejected: Map<string, string>;
  /** A rule error (bad selector, invalid value): the PTR is retried with backoff. */
  error?: string;
}

/** The previous round's persisted results, read back for sticky approval and stable reasons. */
export interface PreviousResults {
  detail(podName: string): TransitionRuleDetail | undefined;
  ruleState(ruleName: string): RuleState | undefined;
}

export function previousResults(status: PodTransitionRuleStatus | undefined): PreviousResults {
  const details = new Map((status?.details ?? []).map((d) => [d.name, d]));
  const states = new Map((status?.ruleStates ?? []).map((s) => [s.name, s]));
  return { detail: (n) => details.get(n), ruleState: (n) => states.get(n) };
}

/** Whether `ruleName` approved the pod earlier in the same stage (approval is sticky in a stage). */
export function passedBefore(previous: PreviousResults, podName: string, stage: LifecycleStage, ruleName: string): boolean {
  const d = previous.detail(podName);
  return d?.stage === stage && (d.passedRules ?? []).includes(ruleName);
}

/** The reason the rule gave last round for rejecting the pod in this stage, if any. */
export function previousReason(previous: PreviousResults, podName: string, stage: LifecycleStage, ruleName: string): string | undefined {
  const d = previous.detail(podName);
  if (d?.stage !== stage) return undefined;
  return d.rejectInfo?.find((r) => r.ruleName === ruleName)?.reason;
}

/** The parts of a PodTransitionRule object a round reads (the cached JSON or a typed object fits). */
export interface RuleObject {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly generation?: number;
    readonly deletionTimestamp?: unknown;
    readonly finalizers?: readonly string[];
  };
  readonly spec: PodTransitionRuleSpec;
  readonly status?: PodTransitionRuleStatus;
}
