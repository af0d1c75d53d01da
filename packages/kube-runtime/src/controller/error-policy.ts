// The one error policy of every controller (kube-rs's error_policy): what a thrown error means for
// the key, the log, the metrics and the Events. Pure, so its table is tested on its own.
//
//   thrown                                   key                                 log, result       Event
//   TerminalError                            forgotten, not retried              error, error      none
//   a lost race: a ConflictError, a          backoff                             debug, requeue    none
//     LostRaceError, or a ReconcileError
//     whose causes all are lost races
//   a ReconcileError                         backoff, never sooner than the      error, error      its own, if it names one
//                                              longest Retry-After of its causes
//   anything else                            backoff, never sooner than its      error, error      none
//                                              Retry-After
//
// A reconcile cut by its controller stopping never reaches the policy: the next leader replans.
import { isConflict } from '../client/errors.ts';
import { retryAfterMs } from '../client/retry-after.ts';
import { LostRaceError, ReconcileError, TerminalError, type FailureEvent } from './errors.ts';

export interface ErrorDecision {
  /** 'backoff': re-added with the rate limiter's backoff, no sooner than `notBeforeMs`; 'drop': forgotten. */
  retry: 'backoff' | 'drop';
  notBeforeMs: number;
  /** A lost race is routine: logged at debug and counted as a requeue, not an error. */
  lostRace: boolean;
  /** The Warning to record, its note the error's message. */
  event: FailureEvent | undefined;
}

/** Whether every part of `err` is a write that lost a race. */
export function isLostRace(err: unknown): boolean {
  if (isConflict(err) || err instanceof LostRaceError) return true;
  return err instanceof ReconcileError && err.errors.length > 0 && err.errors.every((e) => isLostRace(e));
}

export function errorPolicy(err: unknown): ErrorDecision {
  if (err instanceof TerminalError) return { retry: 'drop', notBeforeMs: 0, lostRace: false, event: undefined };
  if (isLostRace(err)) return { retry: 'backoff', notBeforeMs: 0, lostRace: true, event: undefined };
  return { retry: 'backoff', notBeforeMs: retryAfterMs(err), lostRace: false, event: err instanceof ReconcileError ? err.event : undefined };
}
