// A PodTransitionRule's current decisions (status.details), counted per outcome (pure).
import type { PodTransitionRuleStatus } from '@cloneset-suite/api-types';

export const RULE_DECISIONS = ['passed', 'rejected'] as const;
export type RuleDecision = (typeof RULE_DECISIONS)[number];

export function ruleDecisions(status: Pick<PodTransitionRuleStatus, 'details'> | undefined): Record<RuleDecision, number> {
  const details = status?.details ?? [];
  const passed = details.filter((d) => d.passed).length;
  return { passed, rejected: details.length - passed };
}
