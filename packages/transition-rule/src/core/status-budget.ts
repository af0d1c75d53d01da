// A status the apiserver accepts: each reason is capped at 1 KiB already, but 1,500 held pods with
// a 1 KiB reason each would still pass etcd's 1.5 MiB object limit. Past the budget, reasons and
// task messages are cut shorter, step by step, until the status fits (or they are 64 bytes each).
import type { PodTransitionRuleStatus, RuleState, TaskState } from '@cloneset-suite/api-types';
import { capText, utf8Bytes } from './reason-text.ts';

/** Largest status written as is (etcd refuses objects over 1.5 MiB; the spec needs room too). */
export const STATUS_BUDGET_BYTES = 1024 * 1024;
const CAPS = [512, 256, 128, 64] as const;

const statusBytes = (status: PodTransitionRuleStatus): number => utf8Bytes(JSON.stringify(status));

function capTask(task: TaskState, cap: number): TaskState {
  return task.message === undefined ? task : { ...task, message: capText(task.message, cap) };
}

function capRuleState(state: RuleState, cap: number): RuleState {
  const web = state.webhookStatus;
  if (!web) return state;
  return {
    ...state,
    webhookStatus: {
      ...(web.taskStates ? { taskStates: web.taskStates.map((t) => capTask(t, cap)) } : {}),
      ...(web.history ? { history: web.history.map((t) => capTask(t, cap)) } : {}),
    },
  };
}

function capStatus(status: PodTransitionRuleStatus, cap: number): PodTransitionRuleStatus {
  return {
    ...status,
    ...(status.details
      ? { details: status.details.map((d) => (d.rejectInfo ? { ...d, rejectInfo: d.rejectInfo.map((r) => ({ ...r, reason: capText(r.reason, cap) })) } : d)) }
      : {}),
    ...(status.ruleStates ? { ruleStates: status.ruleStates.map((s) => capRuleState(s, cap)) } : {}),
  };
}

/** The status itself when it fits the budget, else the same with its texts cut shorter. */
export function fitStatus(status: PodTransitionRuleStatus, budgetBytes = STATUS_BUDGET_BYTES): PodTransitionRuleStatus {
  if (statusBytes(status) <= budgetBytes) return status;
  let fitted = status;
  for (const cap of CAPS) {
    fitted = capStatus(status, cap);
    if (statusBytes(fitted) <= budgetBytes) return fitted;
  }
  return fitted;
}
