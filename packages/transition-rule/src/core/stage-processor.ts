// The stage processor (Kuperator's PodTransitionRule controller): the rules of one stage, in order, over the pods in that
// stage. A pod a rule rejects is not shown to later rules; a pod a rule skips passes through.
import type { RuleState, TransitionRule, TransitionRuleDetail } from '@cloneset-suite/api-types';
import { evaluateAvailablePolicy } from './available-policy.ts';
import { evaluateLabelCheck } from './label-check.ts';
import { capText } from './reason-text.ts';
import { effectiveRules, ruleAppliesTo, ruleKind } from './rules.ts';
import { byStageEntry, podName } from './stage.ts';
import { passedBefore, previousReason, type LifecycleStage, type PodView, type PreviousResults, type RuleOutcome } from './types.ts';
import { evaluateWebhookRule } from './webhook-rule.ts';
import type { WebhookAction, WebhookRuleRuntime } from './webhook-runtime.ts';

export interface StageInput {
  namespace: string;
  ptrName: string;
  stage: LifecycleStage;
  rules: readonly TransitionRule[] | undefined;
  /** Every pod the PodTransitionRule selects. */
  selected: readonly PodView[];
  /** The selected pods in this stage. */
  subjects: readonly PodView[];
  previous: PreviousResults;
  /** Replicas the selected pods' owners want but do not have (availablePolicy counts them). */
  missingReplicas: number;
  runtime: (ruleName: string) => WebhookRuleRuntime;
  nowMs: number;
  newTraceId: () => string;
}

export interface StageResult {
  details: TransitionRuleDetail[];
  ruleStates: RuleState[];
  actions: WebhookAction[];
  errors: string[];
  requeueAfterMs?: number;
}

function runRule(rule: TransitionRule, pods: readonly PodView[], input: StageInput): RuleOutcome & { ruleState?: RuleState; actions?: WebhookAction[]; requeueAfterMs?: number } {
  const sticky = (name: string): boolean => passedBefore(input.previous, name, input.stage, rule.name);
  switch (ruleKind(rule)) {
    case 'availablePolicy':
      return evaluateAvailablePolicy({
        ruleName: rule.name,
        policy: rule.availablePolicy!,
        selected: input.selected,
        subjects: pods,
        passedBefore: sticky,
        missingReplicas: input.missingReplicas,
      });
    case 'labelCheck': {
      // Sticky like the other kinds: a pod approved in this stage is not re-checked.
      const checked = evaluateLabelCheck(rule.name, rule.labelCheck!, pods.filter((p) => !sticky(podName(p))));
      return { ...checked, passed: pods.map(podName).filter((n) => sticky(n) || checked.passed.includes(n)) };
    }
    case 'webhook':
      return evaluateWebhookRule({
        namespace: input.namespace,
        ptrName: input.ptrName,
        ruleName: rule.name,
        stage: input.stage,
        webhook: rule.webhook!,
        subjects: pods,
        passedBefore: sticky,
        previousReason: (name) => previousReason(input.previous, name, input.stage, rule.name),
        previousState: input.previous.ruleState(rule.name),
        runtime: input.runtime(rule.name),
        nowMs: input.nowMs,
        newTraceId: input.newTraceId,
      });
    default:
      return { passed: pods.map(podName), rejected: new Map() };
  }
}

export function processStage(input: StageInput): StageResult {
  const result: StageResult = { details: [], ruleStates: [], actions: [], errors: [] };
  if (input.subjects.length === 0) return result;
  const passedRules = new Map<string, string[]>(input.subjects.map((p) => [podName(p), []]));
  const rejectInfo = new Map<string, { ruleName: string; reason: string }[]>();
  let current = [...input.subjects].sort(byStageEntry(input.stage));
  for (const rule of effectiveRules(input.rules, input.stage)) {
    const applies = ruleAppliesTo(rule);
    const evaluated = current.filter(applies);
    const skipped = new Set(current.filter((p) => !applies(p)).map(podName));
    const outcome = evaluated.length > 0 ? runRule(rule, evaluated, input) : { passed: [], rejected: new Map<string, string>() };
    for (const name of outcome.passed) passedRules.get(name)?.push(rule.name);
    for (const [name, reason] of outcome.rejected) rejectInfo.set(name, [{ ruleName: rule.name, reason: capText(reason) }]);
    if (outcome.error) result.errors.push(outcome.error);
    if ('ruleState' in outcome && outcome.ruleState) result.ruleStates.push(outcome.ruleState);
    if ('actions' in outcome && outcome.actions) result.actions.push(...outcome.actions);
    if ('requeueAfterMs' in outcome && outcome.requeueAfterMs !== undefined) {
      result.requeueAfterMs = Math.min(result.requeueAfterMs ?? Infinity, outcome.requeueAfterMs);
    }
    const passed = new Set(outcome.passed);
    current = current.filter((p) => passed.has(podName(p)) || skipped.has(podName(p)));
  }
  for (const pod of input.subjects) {
    const name = podName(pod);
    const rejects = rejectInfo.get(name) ?? [];
    const passedList = passedRules.get(name) ?? [];
    result.details.push({
      name,
      stage: input.stage,
      passed: rejects.length === 0,
      ...(passedList.length > 0 ? { passedRules: passedList } : {}),
      ...(rejects.length > 0 ? { rejectInfo: rejects } : {}),
    });
  }
  return result;
}
