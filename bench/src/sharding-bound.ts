// What bound one timed phase of the sharding scenario, from what was measured over it: the
// managers' request rate against their client limits, and how busy the machine's CPUs were. A
// client that sent at its limit most of the window was bound by it; otherwise CPUs busy nearly all
// the time (the apiserver, etcd, the simulated kubelet and the managers share them) were the
// bound; otherwise neither: the time went to round trips (watch latency, the kubelet's delays).

export interface PhaseLoad {
  windowSeconds: number;
  /** Requests the managers sent, reads included (the client's limiter paces them all). */
  requests: number;
  /** The managers' summed client limit (qps x managers). */
  qpsLimit: number;
  /** Seconds requests waited at the client's limiter, summed over requests. */
  rateLimiterWaitSeconds: number;
  /** The machine's busy CPU seconds over the window, and its CPUs. */
  machineBusySeconds: number;
  cpus: number;
}

/** The share of its limit the client used, and of the machine's CPU time that was busy. */
export function phaseShares(p: PhaseLoad): { clientRate: number; cpuBusy: number } {
  return { clientRate: p.requests / (p.windowSeconds * p.qpsLimit), cpuBusy: p.machineBusySeconds / (p.windowSeconds * p.cpus) };
}

/** At or above these shares the client, or the CPUs, are named the bound. */
export const CLIENT_BOUND_SHARE = 0.8;
export const CPU_BOUND_SHARE = 0.9;

export function boundOf(p: PhaseLoad): 'client rate' | 'CPU' | 'latency' {
  const { clientRate, cpuBusy } = phaseShares(p);
  if (clientRate >= CLIENT_BOUND_SHARE && p.rateLimiterWaitSeconds > 0) return 'client rate';
  if (cpuBusy >= CPU_BOUND_SHARE) return 'CPU';
  return 'latency';
}
