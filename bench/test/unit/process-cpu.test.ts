import { describe, expect, it } from 'vitest';
import { processCpuBetween, totalCpu } from '../../src/process-cpu.ts';
import { processCpuMedians, processCpuRow } from '../../src/process-cpu-table.ts';
import type { TimedRun } from '../../src/workload-run.ts';

const run = (processCpu: TimedRun['processCpu'], windowMs: number): TimedRun => ({
  ms: windowMs,
  milestonesMs: {},
  observed: { podCreates: 0, podDeletes: 0, workloadWrites: 0, revisionWrites: 0, eventsByComponent: {} } as unknown as TimedRun['observed'],
  observedControllerWrites: 0,
  podMilestonesMs: [],
  processCpu,
  windowMs,
  apiserverRequests: { 'PATCH pods/status 200': 600, 'PATCH pods/status 409': 30, 'POST pods 201': 300, 'GET pods 200': 5 },
});

describe('processCpuBetween', () => {
  it('keeps the processes read both times and adds the controller child', () => {
    const used = processCpuBetween({ 'kube-apiserver': 10, etcd: 4, bench: 1 }, { 'kube-apiserver': 13.5, etcd: 5, 'kwok-controller': 9, bench: 1.25 }, 0.75);
    expect(used).toEqual({ 'kube-apiserver': 3.5, etcd: 1, bench: 0.25, controller: 0.75 });
    expect(totalCpu(used)).toBe(5.5);
  });

  it('leaves the controller out for a workload whose controller runs inside the kcm', () => {
    expect(processCpuBetween({ 'kube-controller-manager': 1 }, { 'kube-controller-manager': 2 })).toEqual({ 'kube-controller-manager': 1 });
  });
});

describe('processCpuMedians and the table row', () => {
  it('takes each column median and says how many CPUs the total kept busy', () => {
    const runs = [run({ 'kube-apiserver': 2, controller: 1 }, 2_000), run({ 'kube-apiserver': 4, controller: 3 }, 4_000), run({ 'kube-apiserver': 3, controller: 2 }, 3_000)];
    const m = processCpuMedians(runs);
    expect(m.bySeconds).toEqual({ 'kube-apiserver': 3, controller: 2 });
    expect(m.totalSeconds).toBe(5);
    expect(m.windowMs).toBe(3_000);
    expect([m.podWrites, m.podWritesRefused]).toEqual([930, 30]);
    const row = processCpuRow('CloneSet', 300, runs);
    expect(row.slice(0, 3)).toEqual(['CloneSet', 300, '3.00']);
    expect(row.at(-4)).toMatch(/^1\.67 of \d+$/);
    expect(row.at(-3)).toBe('n/a');
    expect(row.slice(-2)).toEqual(['3.10', '0.10']);
    expect(row).toContain('n/a');
  });

  it('reports the median CPU the hypervisor stole during the runs', () => {
    const runs = [0.5, 0.25, 2].map((stolenSeconds) => ({ ...run({ controller: 1 }, 1_000), stolenSeconds }));
    expect(processCpuMedians(runs).stolenSeconds).toBe(0.5);
    expect(processCpuRow('CloneSet', 300, runs).at(-3)).toBe('0.50');
  });
});
