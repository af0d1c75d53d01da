// Which waiting webhook call starts next: a fair share of the outbound concurrency per
// namespace. Calls run at most `total` at once and at most `perKey` per namespace; free slots go
// round-robin to the namespaces with calls waiting, so a busy namespace cannot starve a quiet
// one. And the last `reserved` slots are kept for namespaces with nothing running: a few
// namespaces whose webhooks hang (each holding its share until the call timeout) can take at most
// total - reserved slots, so another namespace's first call always finds one.

export interface ShareLimits {
  total: number;
  perKey: number;
}

/** Slots only a namespace with nothing running may take: perKey, leaving at least perKey to the rest. */
export function reservedSlots(limits: ShareLimits): number {
  return Math.max(0, Math.min(limits.perKey, limits.total - limits.perKey));
}

/**
 * The key whose oldest waiting call starts next, or undefined when none may: the first key in
 * round-robin order (least recently served first) that is under its share, while slots are free
 * (the reserved ones only for a key with nothing running).
 */
export function nextKey(order: readonly string[], running: ReadonlyMap<string, number>, limits: ShareLimits): string | undefined {
  let total = 0;
  for (const n of running.values()) total += n;
  if (total >= limits.total) return undefined;
  const openToBusy = total < limits.total - reservedSlots(limits);
  return order.find((key) => {
    const mine = running.get(key) ?? 0;
    return mine < limits.perKey && (mine === 0 || openToBusy);
  });
}
