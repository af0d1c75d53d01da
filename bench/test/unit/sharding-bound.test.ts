import { describe, expect, it } from 'vitest';
import { boundOf, phaseShares, type PhaseLoad } from '../../src/sharding-bound.ts';

const base: PhaseLoad = { windowSeconds: 100, requests: 0, qpsLimit: 50, rateLimiterWaitSeconds: 0, machineBusySeconds: 0, cpus: 2 };

describe('what bound a phase', () => {
  it.each([
    { case: 'one manager sending at its 50 qps, waiting at its limiter', p: { requests: 4_800, rateLimiterWaitSeconds: 900, machineBusySeconds: 150 }, want: 'client rate' },
    { case: 'three shards at a third of their 150 qps, the CPUs full', p: { qpsLimit: 150, requests: 5_000, rateLimiterWaitSeconds: 20, machineBusySeconds: 195 }, want: 'CPU' },
    { case: 'at the limit but never waiting for it (the limit not reached per request)', p: { requests: 4_900, rateLimiterWaitSeconds: 0, machineBusySeconds: 100 }, want: 'latency' },
    { case: 'neither: the time went to round trips', p: { requests: 1_000, machineBusySeconds: 90 }, want: 'latency' },
  ])('$case', ({ p, want }) => {
    expect(boundOf({ ...base, ...p })).toBe(want);
  });

  it('reports the shares it decides by', () => {
    expect(phaseShares({ ...base, requests: 2_500, machineBusySeconds: 100 })).toEqual({ clientRate: 0.5, cpuBusy: 0.5 });
  });
});
