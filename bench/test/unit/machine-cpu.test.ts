import { describe, expect, it } from 'vitest';
import { machineCpuNow, machineCpuOfProcStat } from '../../src/machine-cpu.ts';

describe('machineCpuOfProcStat', () => {
  it('adds user, nice, system, irq and softirq of the aggregate line, in USER_HZ, and keeps steal apart', () => {
    const stat = 'cpu  1000 10 200 9000 50 3 7 20 400 0\ncpu0 500 5 100 4500 25 1 3 10 200 0\nintr 1 2 3\n';
    const m = machineCpuOfProcStat(stat, 100);
    expect(m?.busy).toBeCloseTo(12.2);
    expect(m?.steal).toBeCloseTo(0.2);
  });

  it('has no answer without the aggregate line', () => {
    expect(machineCpuOfProcStat('cpu0 1 2 3\n', 100)).toBeUndefined();
  });

  it('reads a growing number on this machine', async () => {
    const before = await machineCpuNow();
    const until = performance.now() + 60;
    while (performance.now() < until);
    const after = await machineCpuNow();
    if (before === undefined || after === undefined) return expect(process.platform).not.toBe('linux');
    expect(after.busy).toBeGreaterThan(before.busy);
  });
});
