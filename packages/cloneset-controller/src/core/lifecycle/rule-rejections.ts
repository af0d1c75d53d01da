// The PreCheck verdicts the rule engine records on a pod (annotation
// `detail.podtransitionrule.kusionstack.io/<rule>`: stage, passed, rejectInfo): read by the
// PodsHeld holds (rule-waits.ts) and by the lifecycle gate, which leaves a rejected pod to them.
import type { V1Pod } from '@kubernetes/client-node';
import { ptrDetailsOf } from '@cloneset-suite/api-types';

/** One rejection a rule's detail annotation records: `<PodTransitionRule>/<rule>` and its reason. */
export interface RuleRejection {
  transitionRule: string;
  rule: string;
  reason: string;
}

/** The PreCheck rejections recorded on the pod; an unreadable annotation records none. */
export function preCheckRejections(pod: V1Pod): RuleRejection[] {
  const out: RuleRejection[] = [];
  for (const d of ptrDetailsOf(pod.metadata?.annotations)) {
    if (!d.readable || d.stage !== 'PreCheck' || d.passed !== false) continue;
    if (d.rejections.length === 0) out.push({ transitionRule: d.transitionRule, rule: '', reason: '' });
    for (const r of d.rejections) out.push({ transitionRule: d.transitionRule, rule: r.ruleName ?? '', reason: r.reason ?? '' });
  }
  return out;
}
