// A planner written in stages: a generator that yields between two stages and returns the plan.
// The shell runs it with kube-runtime's runInTurns, giving the event loop a turn at the first
// yield after 10 ms (a pass over 10,000 pods otherwise holds it for the whole pass); tests and
// tools run it at once.

/** A computation in stages, ending with its result. */
export type Stages<T> = Generator<void, T, void>;

/** Runs every stage back to back: the same result as in turns, since the stages read only their input. */
export function runToEnd<T>(stages: Stages<T>): T {
  for (;;) {
    const next = stages.next();
    if (next.done) return next.value;
  }
}
