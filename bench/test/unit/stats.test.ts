import { describe, expect, it } from 'vitest';
import { inPlaceRolloutLowerBoundMs, percentile, recreateRolloutLowerBoundMs, resolveMaxUnavailable, summarize } from '../../src/stats.ts';

describe('percentile (nearest rank)', () => {
  it('picks the sample at rank ceil(p/100 × n) of the sorted samples', () => {
    const samples = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 95)).toBe(10);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 100)).toBe(10);
  });

  it('is NaN without samples and refuses p outside 0..100', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });

  it('summarizes p50, p95, p99 and max of 1..1000', () => {
    const s = summarize(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(s).toEqual({ count: 1000, p50: 500, p95: 950, p99: 990, max: 1000 });
  });
});

describe('rollout lower bounds', () => {
  const delays = { startMs: 100, readyMs: 300 };

  it('resolves maxUnavailable percentages rounding down, at least one pod', () => {
    expect(resolveMaxUnavailable('20%', 100)).toBe(20);
    expect(resolveMaxUnavailable('20%', 33)).toBe(6);
    expect(resolveMaxUnavailable('1%', 10)).toBe(1);
    expect(resolveMaxUnavailable(3, 100)).toBe(3);
    expect(() => resolveMaxUnavailable('x', 10)).toThrow(/neither/);
  });

  it('is ceil(N / maxUnavailable) batches of start + ready delay', () => {
    expect(recreateRolloutLowerBoundMs(100, '20%', delays)).toBe(5 * 400);
    expect(recreateRolloutLowerBoundMs(30, '20%', delays)).toBe(5 * 400);
    expect(recreateRolloutLowerBoundMs(33, '20%', delays)).toBe(6 * 400);
  });

  it('uses restart + ready delay for in-place updates', () => {
    expect(inPlaceRolloutLowerBoundMs(100, '20%', 100, 300)).toBe(5 * 400);
    expect(inPlaceRolloutLowerBoundMs(100, 10, 50, 300)).toBe(10 * 350);
  });
});
