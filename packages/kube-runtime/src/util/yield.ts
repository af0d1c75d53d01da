// Gives the event loop a turn: timers (a Lease renewal), socket reads (a webhook request) and
// watch events run before the caller goes on. A chain of awaits that never waits on I/O (one
// reconcile after another, each finishing without a write) otherwise runs as microtasks, which
// the event loop cannot interrupt.

/** Resolves after the timers and I/O callbacks already due have run (Node's check phase). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
