// What a failed API write means, for every controller: the write may have landed (no answer came,
// or something in front of the apiserver answered for it), it lost a race (a conflict, including a
// JSON patch whose `test` failed, which the client reports as one: replan from a fresher cache), or
// it was refused.
import { ApiError, isConflict } from './errors.ts';
import { provedNeverSent } from './transport-errors.ts';

export type WriteOutcome = 'unknown' | 'conflict' | 'failed';

/**
 * etcd's `etcdserver: request timed out` (and its `, possibly due to ...` forms), which the
 * apiserver passes on as a 500 InternalError: etcd may still commit the write. An admission
 * webhook's `context deadline exceeded` is not matched: admission refused the write before storage.
 */
const STORAGE_TIMED_OUT = /request timed out/i;

/**
 * `signal` is the reconcile's: aborted mid-request (its deadline, a shutdown), the request may
 * have reached the apiserver. 504 and reason Timeout/ServerTimeout are the apiserver's own
 * "did not complete in time": the write may still be applied, as client-go's IsTimeout says.
 * A 502, or a 503 or 500 without a Kubernetes Status body, comes from a proxy or load balancer in
 * front of the apiserver: it may have passed the request on before its upstream connection broke.
 * The apiserver's own 503 carries a Status and means it did not take the request; its own 500
 * is unknown only when its message says storage timed out.
 * A transport error is unknown unless its cause proves the request never left (transport-errors.ts).
 */
export function writeOutcome(err: unknown, signal?: AbortSignal): WriteOutcome {
  if (signal?.aborted) return 'unknown';
  if (err instanceof ApiError) {
    // Reason Timeout with code 0 is our client's own deadline.
    if (err.code === 504 || err.reason === 'Timeout' || err.reason === 'ServerTimeout') return 'unknown';
    if (err.code === 502 || ((err.code === 503 || err.code === 500) && !err.statusBody)) return 'unknown';
    if (err.code === 500 && STORAGE_TIMED_OUT.test(err.message)) return 'unknown';
    if (err.code === 0 && err.reason === 'TransportError') return provedNeverSent(err.cause) ? 'failed' : 'unknown';
    if (isConflict(err)) return 'conflict';
  }
  return 'failed';
}
