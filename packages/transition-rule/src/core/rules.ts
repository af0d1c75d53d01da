// Which rules apply to which pods (as Kuperator's stage processor decides): a rule's kind and stage, the
// evaluation order availablePolicy -> labelCheck -> webhook, and the per-pod skips (the skip
// annotation, `conditions`, `filter.labelSelector`).
import { PTR_SKIP_RULE_CONDITIONS_ANNOTATION, compileLabelSelector, type TransitionRule } from '@cloneset-suite/api-types';
import type { LifecycleStage, PodView } from './types.ts';

export type RuleKind = 'availablePolicy' | 'labelCheck' | 'webhook';

const KIND_ORDER: readonly RuleKind[] = ['availablePolicy', 'labelCheck', 'webhook'];

/** The kind a rule is evaluated as: the first one set, in evaluation order. */
export function ruleKind(rule: TransitionRule): RuleKind | undefined {
  return KIND_ORDER.find((k) => rule[k] !== undefined && rule[k] !== null);
}

/** A rule without a stage belongs to PreCheck, the first stage the lifecycle registers. */
export function ruleStage(rule: TransitionRule): string {
  return rule.stage ?? 'PreCheck';
}

/** The rules evaluated in `stage`, in order: by kind, then as declared. */
export function effectiveRules(rules: readonly TransitionRule[] | undefined, stage: LifecycleStage): TransitionRule[] {
  const applicable = (rules ?? []).filter((r) => r.disabled !== true && ruleStage(r) === stage && ruleKind(r) !== undefined);
  // Array.prototype.sort is stable: same-kind rules keep their declaration order.
  return applicable.sort((a, b) => KIND_ORDER.indexOf(ruleKind(a)!) - KIND_ORDER.indexOf(ruleKind(b)!));
}

/** Rule names a pod's skip annotation (`{"skipRules":[...]}`) names; a malformed value skips nothing. */
export function skippedRuleNames(pod: PodView): ReadonlySet<string> {
  const raw = pod.metadata?.annotations?.[PTR_SKIP_RULE_CONDITIONS_ANNOTATION];
  if (raw === undefined) return new Set();
  try {
    const parsed = JSON.parse(raw) as unknown;
    const names = (parsed as { skipRules?: unknown } | null)?.skipRules;
    return new Set(Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : []);
  } catch {
    return new Set();
  }
}

/**
 * A predicate: does `rule` apply to the pod, or is the pod skipped (passes through untouched)?
 * Kuperator registers no `conditions`, so a rule naming any never applies. An invalid filter
 * selector is reported by admission; here it applies the rule to no pod.
 */
export function ruleAppliesTo(rule: TransitionRule): (pod: PodView) => boolean {
  if ((rule.conditions ?? []).length > 0) return () => false;
  let filter: ((labels: Readonly<Record<string, string>> | undefined) => boolean) | undefined;
  if (rule.filter?.labelSelector) {
    try {
      filter = compileLabelSelector(rule.filter.labelSelector);
    } catch {
      return () => false;
    }
  }
  return (pod) => !skippedRuleNames(pod).has(rule.name) && (filter === undefined || filter(pod.metadata?.labels));
}
