// Which waiting webhook call starts next (decisions.md 8: a fair share of the outbound
// concurrency per namespace). Calls run at most `total` at once and at most `perKey` per
// namespace, so one namespace's slow or silent webhooks hold no more than their share; free slots
// go round-robin to the namespaces with calls waiting, so a busy namespace cannot starve a quiet one.

export interface ShareLimits {
  total: number;
  perKey: number;
}

/**
 * The key whose oldest waiting call starts next, or undefined when none may: the first key in
 * round-robin order (least recently served first) that is under its share, while slots are free.
 */
export function nextKey(order: readonly string[], running: ReadonlyMap<string, number>, limits: ShareLimits): string | undefined {
  let total = 0;
  for (const n of running.values()) total += n;
  if (total >= limits.total) return undefined;
  return order.find((key) => (running.get(key) ?? 0) < limits.perKey);
}
