// availablePolicy (Kuperator's algorithm, with percentages rounded as documented and a
// deterministic quota order, both below): approve pods while the selected pods keep
// enough availability. A pod is unavailable when it lacks the service-available label; a pod the
// rule approved earlier in this stage keeps its approval and its share of the quota; a replica the
// pods' owner wants but does not have spends the quota too (missing-replicas.ts).
import { POL_LABELS, parseIntOrPercent, scalePercent, type AvailablePolicy, type IntOrString } from '@cloneset-suite/api-types';
import { podName } from './stage.ts';
import type { PodView, RuleOutcome } from './types.ts';

export interface AvailablePolicyInput {
  ruleName: string;
  policy: AvailablePolicy;
  /** Every pod the PodTransitionRule selects (in a stage or not). */
  selected: readonly PodView[];
  /** The pods this rule evaluates, in quota order (stage entry time, then name). */
  subjects: readonly PodView[];
  /** Whether this rule approved the pod earlier in the current stage. */
  passedBefore: (podName: string) => boolean;
  /** Replicas the selected pods' owners want but do not have (each one unavailable too). */
  missingReplicas?: number;
}

export function isUnavailable(pod: PodView): boolean {
  return !Object.hasOwn(pod.metadata?.labels ?? {}, POL_LABELS.serviceAvailable);
}

/** maxUnavailableValue: an int as given; a percentage of N rounded down, at least 1 (as Kuperator's docs say; its code rounds up). */
export function maxUnavailableQuota(value: IntOrString | undefined, total: number): number {
  if (value === undefined) return total;
  const parsed = parseIntOrPercent(value);
  if (parsed.kind === 'int') return parsed.value;
  return Math.max(1, scalePercent(parsed, total, 'down'));
}

/** minAvailableValue: an int as given; a percentage of N rounded up, as a PodDisruptionBudget does. */
export function minAvailableQuota(value: IntOrString | undefined, total: number): number {
  if (value === undefined) return 0;
  return scalePercent(parseIntOrPercent(value), total, 'up');
}

export function evaluateAvailablePolicy(input: AvailablePolicyInput): RuleOutcome {
  const { ruleName, policy, selected, subjects, passedBefore } = input;
  const missing = input.missingReplicas ?? 0;
  const total = selected.length;
  let maxQuota: number;
  let minQuota: number;
  try {
    maxQuota = maxUnavailableQuota(policy.maxUnavailableValue, total);
    minQuota = minAvailableQuota(policy.minAvailableValue, total);
  } catch (err) {
    const reason = `invalid available policy: ${(err as Error).message}`;
    return { passed: [], rejected: new Map(subjects.map((p) => [podName(p), reason])), error: `rule ${ruleName}: ${reason}` };
  }

  // Quota already spent: replicas not there at all, pods this rule approved, pods unavailable anyway.
  let allow = maxQuota - missing;
  let available = 0;
  for (const pod of selected) {
    if (passedBefore(podName(pod)) || isUnavailable(pod)) allow--;
    else available++;
  }

  const passed: string[] = [];
  const rejected = new Map<string, string>();
  for (const pod of subjects) {
    const name = podName(pod);
    if (passedBefore(name) || isUnavailable(pod)) {
      passed.push(name);
    } else if (allow > 0) {
      if (available - minQuota < 1) {
        rejected.set(name, `blocked by min available policy: [min available]=${minQuota}/${total}, [current keep available]=${available}/${total}`);
      } else {
        passed.push(name);
        available--;
        allow--;
      }
    } else {
      const absent = missing > 0 ? `, [missing replicas]=${missing}` : '';
      rejected.set(name, `[${ruleName}] blocked by max unavailable policy: [max unavailable]=${maxQuota}/${total}, [current unavailable]=${total - available}/${total}${absent}`);
    }
  }
  return { passed, rejected };
}
