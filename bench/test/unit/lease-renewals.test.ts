import { describe, expect, it } from 'vitest';
import { leasesLost, summarizeRenewals, type LeaseSighting } from '../../src/lease-renewals.ts';

const at = (seenAtMs: number, renewTimeMs: number, holder = 'child'): LeaseSighting => ({ seenAtMs, renewTimeMs, holder });

describe('summarizeRenewals', () => {
  it('finds the largest step between renewTimes and the largest wait the watcher saw, the window edges included', () => {
    const s = summarizeRenewals([at(100, 1_000), at(2_150, 3_000), at(9_300, 10_100), at(11_350, 12_200)], { startMs: 0, endMs: 16_000 });
    expect(s).toEqual({ renewals: 4, largestRenewGapMs: 7_100, largestSeenGapMs: 7_150, holders: ['child'], holderChanges: 0 });
  });

  it('counts renewals that stopped: the wait from the last one to the end of the window', () => {
    const s = summarizeRenewals([at(1_000, 1_000), at(3_000, 3_000)], { startMs: 0, endMs: 20_000 });
    expect(s.largestRenewGapMs).toBe(2_000);
    expect(s.largestSeenGapMs).toBe(17_000);
  });

  it('counts a renewal seen twice (a relist) once, and leaves out sightings outside the window', () => {
    const s = summarizeRenewals([at(-5, 0), at(10, 1_000), at(500, 1_000), at(2_000, 3_000), at(9_000, 9_000)], { startMs: 0, endMs: 4_000 });
    expect(s.renewals).toBe(2);
    expect(s.largestRenewGapMs).toBe(2_000);
  });

  it('counts each change of holder', () => {
    const s = summarizeRenewals([at(0, 0, 'a'), at(2_000, 2_000, 'a'), at(20_000, 20_000, 'b'), at(22_000, 22_000, 'a')], { startMs: 0, endMs: 22_000 });
    expect(s.holderChanges).toBe(2);
    expect(s.holders).toEqual(['a', 'b']);
  });

  it('without any renewal, the whole window is the wait', () => {
    expect(summarizeRenewals([], { startMs: 5, endMs: 65 })).toEqual({ renewals: 0, largestRenewGapMs: 0, largestSeenGapMs: 60, holders: [], holderChanges: 0 });
  });
});

describe('leasesLost', () => {
  const o = { identity: 'child', renewDeadlineMs: 10_000 };
  it('is 0 while the child renewed within the deadline and nobody else held the lease', () => {
    expect(leasesLost(summarizeRenewals([at(0, 0), at(2_000, 2_000), at(4_100, 4_100)], { startMs: 0, endMs: 5_000 }), o)).toBe(0);
  });
  it('counts the Manager stopping for a lost lease', () => {
    expect(leasesLost(summarizeRenewals([at(0, 0)], { startMs: 0, endMs: 1_000 }), { ...o, stoppedFor: 'lost-leadership' })).toBe(1);
  });
  it('counts two renewals further apart than the renew deadline', () => {
    expect(leasesLost(summarizeRenewals([at(0, 0), at(11_000, 11_000)], { startMs: 0, endMs: 12_000 }), o)).toBe(1);
  });
  it('counts every time another holder took the lease', () => {
    expect(leasesLost(summarizeRenewals([at(0, 0), at(20_000, 20_000, 'other'), at(40_000, 40_000), at(60_000, 60_000, 'other')], { startMs: 0, endMs: 60_000 }), o)).toBe(3);
  });
});
