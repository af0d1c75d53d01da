// A component the Manager runs, after controller-runtime's Runnable. The component says whether it
// needs leadership; the Manager runs it accordingly and stops it in its place in the shutdown.

export interface Runnable {
  /** For logs: which component failed or did not stop in time. */
  readonly name: string;
  /**
   * true: runs only while this replica leads, after the caches synced (controllers).
   * false: runs on every replica from start, standbys included (webhook server, certificates,
   * probe and metrics servers).
   */
  readonly needLeaderElection: boolean;
  /**
   * Runs until `signal` aborts and resolves once stopped (in-flight work done). A rejection
   * before the signal aborted stops the manager with reason 'failed'.
   */
  start(signal: AbortSignal): Promise<void>;
}

/** Resolves when the signal aborts (at once if it already has). */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
