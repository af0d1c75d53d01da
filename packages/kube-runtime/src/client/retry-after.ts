// How long the apiserver asked us to stay away, found anywhere in an error: a reconcile that
// made several writes throws them together (AggregateError) or wraps one (cause), and a 429 or
// a 5xx with Retry-After inside must still reach the queue's backoff.
import { ApiError, TooManyRequestsError } from './errors.ts';

/** Enough for an aggregate of wrapped errors; a cycle of causes ends here too. */
const MAX_DEPTH = 4;

/** The longest Retry-After (ms) in `err`, its `errors` and its `cause` chain; 0 when none. */
export function retryAfterMs(err: unknown, depth = 0): number {
  if (depth > MAX_DEPTH || typeof err !== 'object' || err === null) return 0;
  let own = 0;
  if (err instanceof TooManyRequestsError) own = err.retryAfterSeconds * 1000;
  else if (err instanceof ApiError && err.details?.retryAfterSeconds !== undefined) own = err.details.retryAfterSeconds * 1000;
  const nested = [...(err instanceof AggregateError ? (err.errors as unknown[]) : []), ...(err instanceof Error && err.cause !== undefined ? [err.cause] : [])];
  return nested.reduce<number>((longest, e) => Math.max(longest, retryAfterMs(e, depth + 1)), own);
}
