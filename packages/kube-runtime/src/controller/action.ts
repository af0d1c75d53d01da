// What a reconcile returns (kube-rs's Action): done, until an event brings the key back; or come
// back after a delay (minReadySeconds, a poll interval). A failure is thrown, never returned: the
// error policy (./error-policy.ts) decides what it means.

export type ReconcileAction = { readonly kind: 'done' } | { readonly kind: 'requeueAfter'; readonly ms: number };

const DONE: ReconcileAction = { kind: 'done' };

/** Nothing more to do until an event brings the key back. */
export function done(): ReconcileAction {
  return DONE;
}

/** Come back after the smallest positive delay (ms) given; done when none is. Resets the key's backoff. */
export function requeueAfter(...delaysMs: readonly (number | undefined)[]): ReconcileAction {
  const positive = delaysMs.filter((ms): ms is number => ms !== undefined && ms > 0);
  return positive.length === 0 ? DONE : { kind: 'requeueAfter', ms: Math.min(...positive) };
}
