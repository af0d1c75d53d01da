// The errors a reconcile throws, typed so that one policy (./error-policy.ts) can say what each
// means: a lost race, a failure to retry with backoff (with an Event when it names one), or a
// failure retrying cannot fix. Anything else thrown is a failure retried with backoff.
import type { KubeObject } from '../client/types.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';

/** An error that retrying cannot fix (controller-runtime's TerminalError): logged, counted, not retried. */
export class TerminalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/**
 * A write lost a race with another writer (a 409, a JSON patch whose `test` failed) and no other
 * failure happened: the key is replanned from a fresher cache with backoff, with no Event and no
 * error counted. A ConflictError thrown as it is means the same.
 */
export class LostRaceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LostRaceError';
  }
}

/** The Warning Event a failed reconcile records, its note the error's message. */
export interface FailureEvent {
  regarding: DeepReadonly<KubeObject> | KubeObject;
  reason: string;
  action: string;
}

/**
 * A reconcile that failed: one message for the log and the Event, the errors that caused it (the
 * queue's backoff honours a Retry-After any of them carries) and, optionally, the Warning Event to
 * record. Not recorded when every cause is a lost race.
 */
export class ReconcileError extends AggregateError {
  readonly event: FailureEvent | undefined;

  constructor(message: string, options: { causes?: readonly unknown[]; event?: FailureEvent } = {}) {
    super(options.causes ?? [], message);
    this.name = 'ReconcileError';
    this.event = options.event;
  }
}

/**
 * The reason of a reconcile's signal when the controller stops (shutdown, lost lease), as opposed
 * to its deadline: a reconciler can tell "the manager is going away" from "this pass took too long".
 */
export class ControllerStoppedError extends Error {
  constructor(controller: string) {
    super(`controller ${controller} stopped`);
    this.name = 'ControllerStoppedError';
  }
}

/** Whether `signal` was aborted because its controller is stopping. */
export function abortedByStop(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof ControllerStoppedError;
}

export class ReconcileTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`reconcile exceeded its ${timeoutMs}ms deadline`);
    this.name = 'ReconcileTimeoutError';
  }
}
