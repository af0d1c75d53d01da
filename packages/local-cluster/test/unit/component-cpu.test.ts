import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuTicksOfStat } from '../../src/component-cpu.ts';

describe('cpuTicksOfStat', () => {
  it('adds utime and stime, fields 14 and 15', () => {
    const stat = '4242 (kube-apiserver) S 1 4242 4242 0 -1 4194560 1000 0 0 0 731 69 0 0 20 0 12 0 100 2000000 3000 18446744073709551615';
    expect(cpuTicksOfStat(stat)).toBe(800);
  });

  it('counts fields after the command name, which may hold spaces and parentheses', () => {
    const stat = '7 (kube (weird) name) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 9 0 0';
    expect(cpuTicksOfStat(stat)).toBe(11);
  });

  it('reads this very process', () => {
    expect(cpuTicksOfStat(readFileSync('/proc/self/stat', 'utf8'))).toBeGreaterThanOrEqual(0);
  });
});
