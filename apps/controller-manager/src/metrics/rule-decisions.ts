// A PodTransitionRule's current decisions (status.details), counted per outcome (pure).
import type { PodTransitionRuleStatus } from '@cloneset-suite/api-types';

export const RULE_DECISIONS = ['passed', 'rejected'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

export function ruleDecisions(status: Pick<PodTransitionRuleStatus, 'details'> | undefined): Record<RuleDecision, number> {
  const details = status?.details ?? [];
  const passed = details.filter((d) => d.passed).length;
  return { passed, rejected: details.length - passed };
}

type Details = Pick<PodTransitionRuleStatus, 'details'> | undefined;

/**
 * Decisions a status write made: one per pod whose detail is new or whose verdict flipped,
 * between the status seen before and after (what a counter of evaluations by outcome counts).
 */
export function newDecisions(before: Details, after: Details): Record<RuleDecision, number> {
  const previous = new Map((before?.details ?? []).map((d) => [d.name, d.passed]));
  const out = { passed: 0, rejected: 0 };
  for (const d of after?.details ?? []) {
    if (previous.get(d.name) === d.passed) continue;
    out[d.passed ? 'passed' : 'rejected'] += 1;
  }
  return out;
}
