// Pods a PodTransitionRule holds in PreCheck ("nothing waits silently"): the CloneSet
// began its operation (id `cloneset`) on a controlled pod, and the lifecycle does not grant
// `pre-checked` while a rule selecting the pod rejects it. The rule engine writes its verdict on
// the pod (annotation `detail.podtransitionrule.kusionstack.io/<rule>`: stage, passed, rejectInfo),
// so the CloneSet can say which rule holds how many of its pods, and why.
import type { V1Pod } from '@kubernetes/client-node';
import { POL_CLONESET_ID, POL_PREFIXES, polKey } from '@cloneset-suite/api-types';
import type { PlanContext } from '../context.ts';
import { cloneSetOperation } from './ops-lifecycle.ts';
import { preCheckRejections, type RuleRejection } from './rule-rejections.ts';
import { isControlled, podLabels, podName } from '../pods/pod-state.ts';
import type { Hold } from '../wait.ts';

const PRE_CHECK = polKey(POL_PREFIXES.preCheck, POL_CLONESET_ID);
const PRE_CHECKED = polKey(POL_PREFIXES.preChecked, POL_CLONESET_ID);

/** A controlled pod in the CloneSet's operation that has entered PreCheck and not passed it. */
function inCloneSetPreCheck(pod: V1Pod): boolean {
  const labels = podLabels(pod);
  return isControlled(pod) && !pod.metadata?.deletionTimestamp && cloneSetOperation(pod) !== undefined && labels[PRE_CHECK] !== undefined && labels[PRE_CHECKED] === undefined;
}

/** One hold per rule rejecting pods of the CloneSet in PreCheck, with the reason given to the first pod by name. */
export function transitionRuleWaits(ctx: Pick<PlanContext, 'pods'>): Hold[] {
  const byRule = new Map<string, { rejection: RuleRejection; pods: string[]; types: Set<string> }>();
  const held = ctx.pods.filter(inCloneSetPreCheck).sort((a, b) => (podName(a) < podName(b) ? -1 : podName(a) > podName(b) ? 1 : 0));
  for (const pod of held) {
    for (const r of preCheckRejections(pod)) {
      const key = `${r.transitionRule}\u0000${r.rule}`;
      const entry = byRule.get(key) ?? { rejection: r, pods: [], types: new Set<string>() };
      if (!entry.pods.includes(podName(pod))) entry.pods.push(podName(pod));
      entry.types.add(cloneSetOperation(pod) ?? '');
      byRule.set(key, entry);
    }
  }
  return [...byRule.keys()].sort().map((key) => {
    const { rejection, pods, types } = byRule.get(key)!;
    return {
      kind: 'podTransitionRule' as const,
      transitionRule: rejection.transitionRule,
      rule: rejection.rule,
      reason: rejection.reason,
      stage: 'PreCheck' as const,
      operationTypes: [...types].sort(),
      pods: [...pods].sort(),
    };
  });
}
