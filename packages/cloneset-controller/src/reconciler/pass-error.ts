// What a pass throws when it failed: one message for the log (planner errors, then each failed
// action with the condition it fails), and the errors themselves, so the queue's backoff still
// sees a Retry-After the apiserver sent with any of them.
import { failureCondition, type PlanError } from '../core/plan.ts';
import type { ActionFailure } from '../core/reconcile-plan.ts';

/** A failed action with the error the apiserver (or the client) gave. */
export interface ExecutedFailure extends ActionFailure {
  error?: unknown;
}

export function passError(planErrors: readonly PlanError[], failures: readonly ExecutedFailure[]): AggregateError | undefined {
  const messages = [...planErrors.map((e) => e.message), ...failures.map((f) => `${failureCondition(f.step)}: ${f.message}`)];
  if (messages.length === 0) return undefined;
  return new AggregateError(
    failures.flatMap((f) => (f.error === undefined ? [] : [f.error])),
    messages.join('; '),
  );
}
