// The work of one pass is bounded whatever the spec asks for. A pass writes
// at most MAX_POD_WRITES_PER_PASS pods (creates, deletes, updates, refresh writes: slow-start
// batches fall within it) and comes back for the rest, so a scale to 100,000 neither plans
// 100,000 pods at once nor queues them all behind the client's rate limit.
export const MAX_POD_WRITES_PER_PASS = 500;

/** How soon a pass that left work for later comes back (once expectations allow it). */
export const PASS_LIMIT_REQUEUE_MS = 1_000;

/** Counts the pods a pass acts on; past the limit the rest wait for the next pass. */
export interface PassBudget {
  /** True when one more pod may be written in this pass (and counts it). */
  take(): boolean;
  /** Whether some pod was left for a later pass. */
  readonly leftOver: boolean;
}

export function passBudget(limit = MAX_POD_WRITES_PER_PASS): PassBudget {
  let used = 0;
  let leftOver = false;
  return {
    take: () => {
      if (used < limit) {
        used++;
        return true;
      }
      leftOver = true;
      return false;
    },
    get leftOver() {
      return leftOver;
    },
  };
}
