// Which caches are too stale to act on. A cache is stale when its informer has heard nothing
// from the apiserver (no list, event or bookmark) for longer than the threshold: the watch is
// dead or disconnected. The apiserver sends a bookmark every minute on a quiet watch and the
// reflector restarts a watch silent for 90 s, so a healthy cache is never silent for 2 minutes;
// the threshold stays below the 5-minute expectation window, so no controller plans from a
// frozen cache after its expectations have expired.
import type { Gauge } from 'prom-client';

export const DEFAULT_CACHE_STALE_AFTER_MS = 120_000;

export interface WatchedCache {
  readonly resource: string;
  readonly namespace: string | undefined;
  silentForMs(): number;
}

export interface StaleCache {
  resource: string;
  /** Undefined: every namespace. */
  namespace: string | undefined;
  silentMs: number;
}

export function staleCaches(caches: Iterable<WatchedCache>, thresholdMs: number): StaleCache[] {
  const stale: StaleCache[] = [];
  for (const c of caches) {
    const silentMs = c.silentForMs();
    if (silentMs > thresholdMs) stale.push({ resource: c.resource, namespace: c.namespace, silentMs });
  }
  return stale;
}

/** Sets the gauge per resource to its longest silence (in seconds) across scopes. */
export function recordCacheSilence(gauge: Gauge<'resource'>, caches: Iterable<WatchedCache>): void {
  const longest = new Map<string, number>();
  for (const c of caches) longest.set(c.resource, Math.max(longest.get(c.resource) ?? 0, c.silentForMs()));
  for (const [resource, ms] of longest) gauge.set({ resource }, ms / 1000);
}
