import { describe, expect, it } from 'vitest';
import { estimateSeconds } from '../../src/estimate.ts';
import { FULL, QUICK } from '../../src/result.ts';

const all = ['scale-out', 'rollout', 'settled', 'memory', 'webhook', 'lease'];

describe('estimateSeconds', () => {
  // The lease section's one run of 1,000 pods at the shipped limits adds about 2 minutes, the
  // memory section's 10,000 pods about 4, the rollout of 500 pods (one
  // run per variant) about 3, the Deployment with the CloneSet's pod writes about 3.
  it('keeps the full run under about 30 minutes and the quick one under 7', () => {
    expect(estimateSeconds(FULL, all)).toBeLessThan(30 * 60);
    expect(estimateSeconds(QUICK, all)).toBeLessThan(7 * 60);
  });

  it('says the large scenarios take hours at full size, minutes at the quick one', () => {
    expect(estimateSeconds(FULL, ['scale-large'])).toBeGreaterThan(60 * 60);
    expect(estimateSeconds(QUICK, ['scale-large'])).toBeLessThan(10 * 60);
  });

  it('puts scale-large-shipped at about 45 minutes at full size: scale-large\'s shipped-limit share', () => {
    expect(estimateSeconds(FULL, ['scale-large-shipped'])).toBeGreaterThan(40 * 60);
    expect(estimateSeconds(FULL, ['scale-large-shipped'])).toBeLessThan(50 * 60);
    expect(estimateSeconds(FULL, ['scale-large-shipped'])).toBeLessThan(estimateSeconds(FULL, ['scale-large']) / 1.5);
    expect(estimateSeconds(QUICK, ['scale-large-shipped'])).toBeLessThan(estimateSeconds(QUICK, ['scale-large']));
  });

  it('counts only the selected scenarios, and grows with the repeats', () => {
    expect(estimateSeconds(FULL, ['webhook'])).toBeLessThan(estimateSeconds(FULL, ['webhook', 'settled']));
    expect(estimateSeconds(FULL, [])).toBe(0);
    const doubled = { ...FULL, repeats: 6, rolloutLarge: { ...FULL.rolloutLarge, repeats: 2 * FULL.rolloutLarge.repeats } };
    expect(estimateSeconds(doubled, ['rollout'])).toBe(2 * estimateSeconds(FULL, ['rollout']));
  });
});
