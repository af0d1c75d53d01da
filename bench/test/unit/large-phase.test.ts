import { describe, expect, it } from 'vitest';
import { phaseFigures, reconcileWrites } from '../../src/large-phase.ts';
import { NO_STALLS, addGcPause, addTick } from '../../src/loop-stalls.ts';
import type { TimedRun } from '../../src/workload-run.ts';

const stalls = addGcPause(addGcPause(addTick(NO_STALLS, 120, 80), 30), 45);
const run = (o: Partial<TimedRun> = {}): TimedRun => ({
  ms: 700_000,
  milestonesMs: {},
  observed: { podCreates: 0, podDeletes: 0, workloadWrites: 0, eventsByComponent: {} },
  observedControllerWrites: 0,
  podMilestonesMs: [],
  processCpu: { 'kube-apiserver': 300, 'kwok-controller': 100, controller: 50 },
  windowMs: 710_000,
  apiserverRequests: {},
  controller: {
    writes: 30_450,
    byKind: { 'POST pods': 10_000, 'PATCH pods/status': 10_000, 'PATCH pods': 10_000, 'PUT leases': 350, 'PATCH clonesets/status': 100 },
    reconciles: 400,
    heapUsedBytes: 1,
    rssBytes: 2,
    cpuMicros: 50e6,
    eventLoop: { p99Ms: 12, maxMs: 130, stalls },
  },
  ...o,
});

describe('reconcileWrites', () => {
  it('leaves the elector\'s Lease writes out', () => {
    expect(reconcileWrites(run())).toBe(30_100);
  });
  it('is NaN without a controller child (a Deployment)', () => {
    const { controller: _, ...deployment } = run();
    expect(reconcileWrites(deployment)).toBeNaN();
  });
});

describe('phaseFigures', () => {
  it('sets the time against the client-rate bound of the reconciles\' writes, per pod figures, the loop, GC and what bounded it', () => {
    const f = phaseFigures(run(), 10_000, { qps: 50, burst: 100 }, 2);
    expect(f.clientRateBoundMs).toBe(600_000);
    expect(f.apiWritesPerPod).toBeCloseTo(3.01, 6);
    expect(f.cpuSecondsPer100Pods).toBeCloseTo(0.5, 6);
    expect([f.eventLoopP99Ms, f.eventLoopMaxMs, f.longestStallMs, f.longestStallCpuMs]).toEqual([12, 130, 120, 80]);
    expect([f.gcPauses, f.gcPauseMaxMs, f.gcPauseTotalMs]).toEqual([2, 45, 75]);
    expect(f.cpuBusy).toBeCloseTo(450 / 710, 6);
    expect(f.machineBusy).toBeNaN();
    expect(f.boundBy).toBe('client rate');
  });

  it('unthrottled, a run that kept the CPUs busy was bound by them', () => {
    const f = phaseFigures(run({ ms: 400_000, windowMs: 410_000, processCpu: { 'kube-apiserver': 450, 'kwok-controller': 200, controller: 100 }, machineBusySeconds: 800 }), 10_000, { qps: 5000, burst: 10_000 }, 2);
    expect(f.clientRateBoundMs).toBeCloseTo(4_020, 6);
    expect(f.machineBusy).toBeCloseTo(800 / 410, 6);
    expect(f.boundBy).toBe('CPU (apiserver 56%, kwok (kubelet) 25%)');
  });
});
