import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSeconds, median, medianIndex, sampleStats, speedRatio } from '../../src/samples.ts';

describe('median', () => {
  it.each([
    { samples: [], want: Number.NaN },
    { samples: [7], want: 7 },
    { samples: [3, 1, 2], want: 2 },
    { samples: [4, 1, 3, 2], want: 2.5 },
    { samples: [5, Number.NaN, 1], want: 3 },
  ])('$samples -> $want', ({ samples, want }) => {
    expect(median(samples)).toEqual(want);
  });

  it('lies between min and max and does not depend on the order', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 20 }), (xs) => {
        const s = sampleStats(xs);
        expect(s.min).toBeLessThanOrEqual(s.median);
        expect(s.median).toBeLessThanOrEqual(s.max);
        expect(median([...xs].reverse())).toBe(s.median);
      }),
    );
  });
});

describe('sampleStats', () => {
  it('keeps every sample, ranges over the finite ones', () => {
    expect(sampleStats([3000, Number.NaN, 1000, 2000])).toEqual({ median: 2000, min: 1000, max: 3000, samples: [3000, Number.NaN, 1000, 2000] });
  });
});

describe('speedRatio', () => {
  it.each([
    { baseline: 4000, measured: 10_000, want: 0.4 },
    { baseline: 3000, measured: 1500, want: 2 },
    { baseline: Number.NaN, measured: 1, want: Number.NaN },
    { baseline: 1, measured: 0, want: Number.NaN },
  ])('$baseline / $measured', ({ baseline, measured, want }) => {
    expect(speedRatio(baseline, measured)).toEqual(want);
  });
});

describe('formatSeconds', () => {
  it('shows median and range for several samples, the value alone for one', () => {
    expect(formatSeconds(sampleStats([4810, 4200, 5930]))).toBe('4.81 (4.20–5.93)');
    expect(formatSeconds(sampleStats([4810]))).toBe('4.81');
  });
});

describe('medianIndex', () => {
  it.each([
    { samples: [], want: -1 },
    { samples: [Number.NaN], want: -1 },
    { samples: [7], want: 0 },
    { samples: [29.4, 3.9, 3.6], want: 1 },
    { samples: [4, 1, 3, 2], want: 3 },
    { samples: [Number.NaN, 5, 1, 9], want: 1 },
  ])('$samples -> $want', ({ samples, want }) => {
    expect(medianIndex(samples)).toBe(want);
  });

  it('points at a sample equal to the median for an odd count of finite samples', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 9 }).filter((a) => a.length % 2 === 1), (samples) => {
        expect(samples[medianIndex(samples)]).toBe(median(samples));
      }),
    );
  });
});
