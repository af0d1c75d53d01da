// What a round leaves behind: the PodTransitionRule status and the per-pod detail
// annotation (both as Kuperator writes them), with the change checks that keep writes to real changes.
import { jsonEqual, ptrDetailAnnotation, type PodTransitionRuleStatus, type RuleState, type TransitionRuleDetail } from '@cloneset-suite/api-types';

/** A rule state without its running tasks' lastTime: a poll that changed nothing else is no change. */
function withoutPollTimes(state: RuleState): RuleState {
  const tasks = state.webhookStatus?.taskStates;
  if (!tasks) return state;
  return { ...state, webhookStatus: { ...state.webhookStatus, taskStates: tasks.map(({ lastTime: _polledAt, ...task }) => task) } };
}

/**
 * Status fields whose change is worth a write: not updateTime (it moves on every write), and not a running task's
 * lastTime alone (every poll moves it; it is written with the next real change).
 */
export function statusChanged(before: PodTransitionRuleStatus | undefined, after: PodTransitionRuleStatus): boolean {
  const pick = (s: PodTransitionRuleStatus | undefined) => ({
    observedGeneration: s?.observedGeneration,
    targets: s?.targets ?? [],
    details: s?.details ?? [],
    ruleStates: (s?.ruleStates ?? []).map(withoutPollTimes),
    counts: [s?.targetCount, s?.passedCount, s?.waitingCount],
  });
  return !jsonEqual(pick(before), pick(after));
}

/** The detail annotation's text: the detail without name and passedRules, or an Unknown pass. */
export function detailAnnotationValue(detail: TransitionRuleDetail | undefined): string {
  if (!detail) return JSON.stringify({ stage: 'Unknown', passed: true });
  return JSON.stringify({
    stage: detail.stage ?? 'Unknown',
    passed: detail.passed,
    ...(detail.rejectInfo && detail.rejectInfo.length > 0 ? { rejectInfo: detail.rejectInfo } : {}),
  });
}

export interface AnnotationChange {
  pod: string;
  key: string;
  /** undefined removes the annotation. */
  value: string | undefined;
}

export interface AnnotationInput {
  ptrName: string;
  status: PodTransitionRuleStatus;
  /** Previously targeted pods that are no longer selected lose the annotation. */
  previousTargets: readonly string[];
  /** Current annotations of the pods in the namespace, by pod name (absent pods are skipped). */
  annotationsOf: (podName: string) => Readonly<Record<string, string>> | undefined;
}

/** Annotation writes needed so every selected pod shows its result and no other pod keeps one. */
export function planAnnotations(input: AnnotationInput): AnnotationChange[] {
  const key = ptrDetailAnnotation(input.ptrName);
  const details = new Map((input.status.details ?? []).map((d) => [d.name, d]));
  const targets = new Set(input.status.targets ?? []);
  const changes: AnnotationChange[] = [];
  for (const pod of targets) {
    const current = input.annotationsOf(pod);
    if (current === undefined) continue;
    const value = detailAnnotationValue(details.get(pod));
    if (current[key] !== value) changes.push({ pod, key, value });
  }
  for (const pod of input.previousTargets) {
    if (targets.has(pod)) continue;
    const current = input.annotationsOf(pod);
    if (current !== undefined && Object.hasOwn(current, key)) changes.push({ pod, key, value: undefined });
  }
  return changes;
}
