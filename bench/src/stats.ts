// Pure arithmetic the bench reports: percentiles of latency samples and the lower bounds a
// rollout or scale-out cannot beat on the simulated kubelet.

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile ${p} is outside 0..100`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: samples.length === 0 ? Number.NaN : Math.max(...samples),
  };
}

/** maxUnavailable as the API takes it: an absolute count or a percentage of replicas. */
export function resolveMaxUnavailable(value: number | string, replicas: number): number {
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (!m) throw new Error(`maxUnavailable ${JSON.stringify(value)} is neither a number nor a percentage`);
  // Kubernetes rounds maxUnavailable percentages down (and maxSurge up); at least one pod moves.
  return Math.max(1, Math.floor((Number(m[1]) * replicas) / 100));
}

export interface PodDelays {
  /** sim.cloneset-suite.io/start-delay: creation to containers running. */
  startMs: number;
  /** sim.cloneset-suite.io/ready-delay: running to ready. */
  readyMs: number;
}

/** A new pod cannot be Ready sooner than its simulated start and ready delays. */
export function podReadyLowerBoundMs(delays: PodDelays): number {
  return delays.startMs + delays.readyMs;
}

/**
 * A recreate rollout (maxSurge 0) replaces at most maxUnavailable pods at a time, and each
 * batch takes at least one pod's start + ready delay: ceil(N / maxUnavailable) batches.
 * Terminations are not on the critical path (a terminating pod no longer counts as a replica),
 * nor are API round trips or scheduling: the bound is what an infinitely fast controller,
 * apiserver and scheduler would reach.
 */
export function recreateRolloutLowerBoundMs(replicas: number, maxUnavailable: number | string, delays: PodDelays): number {
  const batch = resolveMaxUnavailable(maxUnavailable, replicas);
  return Math.ceil(replicas / batch) * podReadyLowerBoundMs(delays);
}

/** An in-place rollout restarts containers instead: restart + ready delay per batch. */
export function inPlaceRolloutLowerBoundMs(replicas: number, maxUnavailable: number | string, restartMs: number, readyMs: number): number {
  const batch = resolveMaxUnavailable(maxUnavailable, replicas);
  return Math.ceil(replicas / batch) * (restartMs + readyMs);
}
