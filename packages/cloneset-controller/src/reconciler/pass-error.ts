// What a pass throws when it did not finish clean: its failures as one ReconcileError (planner
// errors, then each failed action with the condition it fails; the errors themselves go with it,
// so the queue's backoff sees a Retry-After the apiserver sent with any of them), or, when only
// writes lost races, a LostRaceError: replanned with backoff, no Event, no failed condition.
import { LostRaceError, ReconcileError } from '@cloneset-suite/kube-runtime';
import { failureCondition, type PlanError } from '../core/plan.ts';
import type { ExecutedFailure } from './actions/outcome.ts';

export function passError(planErrors: readonly PlanError[], failures: readonly ExecutedFailure[], conflicts: readonly string[] = []): Error | undefined {
  const messages = [...planErrors.map((e) => e.message), ...failures.map((f) => `${failureCondition(f.step)}: ${f.message}`)];
  if (messages.length > 0) return new ReconcileError(messages.join('; '), { causes: failures.flatMap((f) => (f.error === undefined ? [] : [f.error])) });
  return conflicts.length > 0 ? new LostRaceError(conflicts.join('; ')) : undefined;
}
