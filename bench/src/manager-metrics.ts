// What a controller-manager process says of itself on /metrics, for runs of whole manager
// processes (the sharding scenario): its API writes (rest_client_requests_total, client-go's name),
// the time its requests waited for the client's rate limiter, and its CPU (prom-client's
// process_cpu_seconds_total). Summed over the processes of a run, differenced over a window.

export interface ManagerReading {
  /** POST, PUT, PATCH and DELETE requests, any outcome. */
  writes: number;
  /** Every request, reads included. */
  requests: number;
  /** Seconds requests waited for the client's rate limiter, summed. */
  rateLimiterWaitSeconds: number;
  cpuSeconds: number;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The reading of one /metrics text exposition. */
export function parseManagerMetrics(text: string): ManagerReading {
  const r: ManagerReading = { writes: 0, requests: 0, rateLimiterWaitSeconds: 0, cpuSeconds: 0 };
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const [, name, labelText = '', raw] = m;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    if (name === 'rest_client_requests_total') {
      const labels = Object.fromEntries([...labelText.matchAll(LABEL)].map(([, k, v]) => [k!, v!]));
      r.requests += value;
      if (WRITE_METHODS.has(labels.method ?? '')) r.writes += value;
    } else if (name === 'rest_client_rate_limiter_duration_seconds_sum') {
      r.rateLimiterWaitSeconds += value;
    } else if (name === 'process_cpu_seconds_total') {
      r.cpuSeconds += value;
    }
  }
  return r;
}

export const EMPTY_READING: ManagerReading = { writes: 0, requests: 0, rateLimiterWaitSeconds: 0, cpuSeconds: 0 };

export function sumReadings(readings: readonly ManagerReading[]): ManagerReading {
  return readings.reduce(
    (a, b) => ({ writes: a.writes + b.writes, requests: a.requests + b.requests, rateLimiterWaitSeconds: a.rateLimiterWaitSeconds + b.rateLimiterWaitSeconds, cpuSeconds: a.cpuSeconds + b.cpuSeconds }),
    EMPTY_READING,
  );
}

/**
 * What the members counted between two readings by name: a member that joined counts from 0; one
 * gone by `after` (killed) took its counts with it, so `complete` is false.
 */
export function fleetGrowth(before: ReadonlyMap<string, ManagerReading>, after: ReadonlyMap<string, ManagerReading>): { used: ManagerReading; complete: boolean } {
  const used = sumReadings([...after].map(([name, a]) => readingBetween(before.get(name) ?? EMPTY_READING, a)));
  return { used, complete: [...before.keys()].every((name) => after.has(name)) };
}

/** after - before, field by field. */
export function readingBetween(before: ManagerReading, after: ManagerReading): ManagerReading {
  return {
    writes: after.writes - before.writes,
    requests: after.requests - before.requests,
    rateLimiterWaitSeconds: after.rateLimiterWaitSeconds - before.rateLimiterWaitSeconds,
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
  };
}
