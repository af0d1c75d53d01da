import { describe, expect, it } from 'vitest';
import { boundOf, clientRateBoundMs } from '../../src/bounds.ts';

describe('clientRateBoundMs', () => {
  it.each([
    { requests: 30_100, limits: { qps: 50, burst: 100 }, want: 600_000 },
    { requests: 80, limits: { qps: 50, burst: 100 }, want: 0 },
    { requests: 10_100, limits: { qps: 5000, burst: 10_000 }, want: 20 },
  ])('$requests requests at qps $limits.qps / burst $limits.burst: $want ms', ({ requests, limits, want }) => {
    expect(clientRateBoundMs(requests, limits)).toBeCloseTo(want, 6);
  });
});

describe('boundOf', () => {
  const cpu = { apiserver: 60, kwok: 30, controller: 10 };
  it('names the client rate when the run took little more than its limiter allows', () => {
    expect(boundOf({ ms: 650_000, clientBoundMs: 600_000, cpuSeconds: cpu, windowMs: 650_000, cpus: 2 })).toBe('client rate');
  });
  it('names the CPU, and the processes that used most of it, when the machine had none to spare', () => {
    expect(boundOf({ ms: 60_000, clientBoundMs: 20, cpuSeconds: cpu, windowMs: 55_000, cpus: 2 })).toBe('CPU (apiserver 60%, kwok 30%)');
  });
  it('counts what other tenants and the kernel used (the machine\'s busy time beyond the measured processes)', () => {
    expect(boundOf({ ms: 60_000, clientBoundMs: 20, cpuSeconds: { apiserver: 30, kwok: 10 }, machineBusySeconds: 110, windowMs: 60_000, cpus: 2 })).toBe('CPU (the rest of the machine 64%, apiserver 27%)');
  });
  it('otherwise the pods\' own delays and the watch round trips', () => {
    expect(boundOf({ ms: 60_000, clientBoundMs: 20, cpuSeconds: { apiserver: 10 }, windowMs: 60_000, cpus: 2 })).toBe('pod delays and watch round trips');
  });
});
