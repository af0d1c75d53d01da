import { describe, expect, it } from 'vitest';
import { chaosSeed, killSchedule, seededRandom } from './seeded.ts';

describe('seeded chaos', () => {
  it('replays the same schedule for the same seed and a different one for another', () => {
    expect(killSchedule(42, 5, 500, 4000)).toEqual(killSchedule(42, 5, 500, 4000));
    expect(killSchedule(42, 5, 500, 4000)).not.toEqual(killSchedule(43, 5, 500, 4000));
  });
  it('keeps every kill point within bounds', () => {
    const points = killSchedule(7, 1000, 500, 4000);
    expect(points).toHaveLength(1000);
    expect(Math.min(...points)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...points)).toBeLessThanOrEqual(4000);
  });
  it('spreads values over [0, 1)', () => {
    const next = seededRandom(1);
    const xs = Array.from({ length: 10_000 }, next);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(xs.filter((x) => x < 0.5).length).toBeGreaterThan(4_700);
    expect(xs.filter((x) => x < 0.5).length).toBeLessThan(5_300);
  });
  it('reads CHAOS_SEED and refuses a bad one', () => {
    expect(chaosSeed({ CHAOS_SEED: '123' })).toBe(123);
    expect(() => chaosSeed({ CHAOS_SEED: 'x' })).toThrow(/CHAOS_SEED/);
    expect(Number.isInteger(chaosSeed({}))).toBe(true);
  });
});
