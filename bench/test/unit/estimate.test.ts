import { describe, expect, it } from 'vitest';
import { estimateSeconds } from '../../src/estimate.ts';
import { FULL, QUICK } from '../../src/result.ts';

const all = ['scale-out', 'rollout', 'settled', 'memory', 'webhook', 'lease'];

describe('estimateSeconds', () => {
  // 22 minutes: the lease section's one run of 1,000 pods at the shipped limits adds about 2.
  it('keeps the full run under about 22 minutes and the quick one under 6', () => {
    expect(estimateSeconds(FULL, all)).toBeLessThan(22 * 60);
    expect(estimateSeconds(QUICK, all)).toBeLessThan(6 * 60);
  });

  it('counts only the selected scenarios, and grows with the repeats', () => {
    expect(estimateSeconds(FULL, ['webhook'])).toBeLessThan(estimateSeconds(FULL, ['webhook', 'settled']));
    expect(estimateSeconds(FULL, [])).toBe(0);
    expect(estimateSeconds({ ...FULL, repeats: 6 }, ['rollout'])).toBe(2 * estimateSeconds(FULL, ['rollout']));
  });
});
