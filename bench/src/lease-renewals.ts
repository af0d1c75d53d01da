// What a watcher of the leader-election Lease saw during a run, reduced to the question
// (#15 item 2): did the leader keep the lease, and how long did it go between renewals?

export interface LeaseSighting {
  /** When the bench's watch saw this version of the Lease (monotonic ms, the bench's clock). */
  seenAtMs: number;
  holder: string;
  /** spec.renewTime in epoch ms (the holder's clock). */
  renewTimeMs: number;
}

export interface RenewalSummary {
  /** Distinct renewals (renewTimes) seen in the window. */
  renewals: number;
  /** The largest step between successive renewTimes: the holder's longest time without a renewal. */
  largestRenewGapMs: number;
  /**
   * The largest wait for the next renewal as the watcher saw it, from the window's start to the
   * first one and from the last one to the window's end included, so renewals that stopped
   * altogether count too.
   */
  largestSeenGapMs: number;
  holders: string[];
  /** How often the holder differed from the previous sighting's (0: the lease was kept). */
  holderChanges: number;
}

/** Sightings within [startMs, endMs] of the window, each renewal counted once (a relist repeats them). */
export function summarizeRenewals(sightings: readonly LeaseSighting[], window: { startMs: number; endMs: number }): RenewalSummary {
  const seen = new Set<string>();
  const inWindow = sightings
    .filter((s) => s.seenAtMs >= window.startMs && s.seenAtMs <= window.endMs)
    .filter((s) => {
      const key = `${s.holder}\u0000${s.renewTimeMs}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  let largestRenewGapMs = 0;
  let holderChanges = 0;
  let largestSeenGapMs = 0;
  let lastSeen = window.startMs;
  inWindow.forEach((s, i) => {
    largestSeenGapMs = Math.max(largestSeenGapMs, s.seenAtMs - lastSeen);
    lastSeen = s.seenAtMs;
    const prev = inWindow[i - 1];
    if (!prev) return;
    largestRenewGapMs = Math.max(largestRenewGapMs, s.renewTimeMs - prev.renewTimeMs);
    if (s.holder !== prev.holder) holderChanges++;
  });
  largestSeenGapMs = Math.max(largestSeenGapMs, window.endMs - lastSeen);
  return {
    renewals: inWindow.length,
    largestRenewGapMs,
    largestSeenGapMs,
    holders: [...new Set(inWindow.map((s) => s.holder))],
    holderChanges,
  };
}

/**
 * How many times the leader lost the Lease over a window (0 wanted): another holder took it, or,
 * with no other holder seen, its Manager stopped for a lost lease or two renewals were further
 * apart than the renew deadline (by then the elector has given up). A controller child stops at
 * its first loss, so one run loses it at most once unless someone else took it over and over.
 */
export function leasesLost(s: RenewalSummary, o: { identity: string; renewDeadlineMs: number; stoppedFor?: string | undefined }): number {
  const takenBy = s.holders.filter((h) => h !== o.identity).length;
  if (takenBy > 0) return Math.max(1, s.holderChanges);
  return o.stoppedFor === 'lost-leadership' || s.largestRenewGapMs >= o.renewDeadlineMs ? 1 : 0;
}
