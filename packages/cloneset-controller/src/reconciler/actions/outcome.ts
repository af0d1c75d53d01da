// What executing a plan reports: the actions that failed and those that lost a race, each with the
// step that planned it (the condition it fails: FailedScale or FailedUpdate) and the error the apiserver or client gave.
import type { ActionFailure } from '../../core/reconcile-plan.ts';

export interface ExecutedFailure extends ActionFailure {
  error?: unknown;
}

export interface ExecutionResult {
  /** Failed actions with the step that planned them. */
  failures: ExecutedFailure[];
  /** Writes that lost a race (409, a failed patch test): the pass requeues, no condition fails. */
  conflicts: ExecutedFailure[];
}
