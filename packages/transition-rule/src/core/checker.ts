// The checker (Kuperator's lifecycle controller reading rule results), the StageGate's answer: a pod in PreCheck or PostCheck passes iff every
// PodTransitionRule of its namespace whose status.targets holds its name has a detail for it with
// the same stage and passed true. No targeting rule passes; several combine with AND.
import type { TransitionRuleDetail } from '@cloneset-suite/api-types';
import type { LifecycleStage, RuleObject } from './types.ts';

export interface StageDecision {
  /** True when the pod may leave `stage` now. */
  passed: boolean;
  /** Why not (empty when passed). */
  message: string;
}

/** The parts of a PodTransitionRule the checker reads. */
export type CheckedRule = Pick<RuleObject, 'metadata' | 'status'>;

export function checkStage(podName: string, stage: LifecycleStage, rulesInNamespace: readonly CheckedRule[]): StageDecision {
  const blocked: string[] = [];
  const targeting = rulesInNamespace
    .filter((r) => (r.status?.targets ?? []).includes(podName))
    .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const rule of targeting) {
    const name = rule.metadata?.name ?? '';
    const detail: TransitionRuleDetail | undefined = rule.status?.details?.find((d) => d.name === podName);
    if (detail?.stage !== stage) {
      blocked.push(`[PodTransitionRule: ${name}, waiting for podtransitionrule ${name} processing]`);
    } else if (!detail.passed) {
      const reasons = (detail.rejectInfo ?? []).map((r) => `${r.ruleName}:${r.reason}`).join(', ');
      blocked.push(`[PodTransitionRule: ${name}, RejectInfo: ${reasons}]`);
    }
  }
  return { passed: blocked.length === 0, message: blocked.join(' ') };
}

/** Pods whose decision may differ between two versions of a rule's status (for the doorbell). */
export function podsWithChangedDecision(before: CheckedRule | undefined, after: CheckedRule | undefined): string[] {
  const view = (r: CheckedRule | undefined): Map<string, string> => {
    const out = new Map<string, string>();
    for (const t of r?.status?.targets ?? []) out.set(t, '');
    for (const d of r?.status?.details ?? []) if (out.has(d.name)) out.set(d.name, JSON.stringify([d.stage, d.passed, d.rejectInfo ?? []]));
    return out;
  };
  const a = view(before);
  const b = view(after);
  const changed = new Set<string>();
  for (const [pod, v] of a) if (b.get(pod) !== v) changed.add(pod);
  for (const [pod, v] of b) if (a.get(pod) !== v) changed.add(pod);
  return [...changed].sort();
}
