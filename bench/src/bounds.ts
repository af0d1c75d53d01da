// What bounded a timed figure of the large scenarios: the controller's client limiter, the
// machine's CPUs, or neither (the simulated kubelet's delays and the watch round trips), said
// from the run's own numbers, so a reader knows which knob would make it faster.

export interface ClientLimits {
  qps: number;
  burst: number;
}

/**
 * The shortest time the client's token bucket lets `requests` through: the burst goes at once,
 * the rest at qps. A run cannot be faster than this whatever the apiserver does.
 */
export function clientRateBoundMs(requests: number, limits: ClientLimits): number {
  return (Math.max(0, requests - limits.burst) / limits.qps) * 1000;
}

export interface BoundInput {
  ms: number;
  /** clientRateBoundMs of the run's requests. */
  clientBoundMs: number;
  /** CPU seconds each measured process used over the run's window, and that window. */
  cpuSeconds: Record<string, number>;
  /** The whole machine's busy CPU seconds over the window, when known: what the measured processes leave is other tenants' and the kernel's. */
  machineBusySeconds?: number;
  windowMs: number;
  cpus: number;
}

/** A run within this share of its client-rate bound was paced by the limiter. */
export const CLIENT_BOUND_SHARE = 0.8;
/** Processes busy for this share of the machine's CPUs left nothing to spare. */
export const CPU_BOUND_SHARE = 0.85;

/** "client rate", "CPU (apiserver 41%, kwok 18%)" or "pod delays and watch round trips". */
export function boundOf(r: BoundInput): string {
  if (r.clientBoundMs >= CLIENT_BOUND_SHARE * r.ms) return 'client rate';
  const measured = Object.values(r.cpuSeconds).reduce((a, b) => a + b, 0);
  const rest = r.machineBusySeconds === undefined ? 0 : Math.max(0, r.machineBusySeconds - measured);
  const users = rest > 0 ? { ...r.cpuSeconds, 'the rest of the machine': rest } : r.cpuSeconds;
  const total = measured + rest;
  const capacity = (r.windowMs / 1000) * r.cpus;
  if (capacity > 0 && total >= CPU_BOUND_SHARE * capacity) {
    const top = Object.entries(users)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([name, s]) => `${name} ${Math.round((100 * s) / total)}%`);
    return `CPU (${top.join(', ')})`;
  }
  return 'pod delays and watch round trips';
}
