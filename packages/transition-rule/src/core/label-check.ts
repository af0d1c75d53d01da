// labelCheck (as Kuperator's): a pod passes when its labels match `requires` (matchLabels and
// matchExpressions). A selector that does not compile rejects every pod and is a rule error.
import { compileLabelSelector, labelSelectorToString, type LabelCheckRule } from '@cloneset-suite/api-types';
import { podName } from './stage.ts';
import type { PodView, RuleOutcome } from './types.ts';

export function evaluateLabelCheck(ruleName: string, check: LabelCheckRule, subjects: readonly PodView[]): RuleOutcome {
  let matches: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  let text: string;
  try {
    matches = compileLabelSelector(check.requires);
    text = labelSelectorToString(check.requires);
  } catch (err) {
    const reason = `invalid label check selector: ${(err as Error).message}`;
    return { passed: [], rejected: new Map(subjects.map((p) => [podName(p), reason])), error: `rule ${ruleName}: ${reason}` };
  }
  const passed: string[] = [];
  const rejected = new Map<string, string>();
  for (const pod of subjects) {
    if (matches(pod.metadata?.labels)) passed.push(podName(pod));
    else rejected.set(podName(pod), `block by label check policy, pod ${pod.metadata?.namespace ?? ''}/${podName(pod)} labels not match ${text}`);
  }
  return { passed, rejected };
}
