// Gives the event loop a turn: timers (a Lease renewal), socket reads (a webhook request) and
// watch events run before the caller goes on. A chain of awaits that never waits on I/O (one
// reconcile after another, each finishing without a write) otherwise runs as microtasks, which
// the event loop cannot interrupt.

/** Resolves after the timers and I/O callbacks already due have run (Node's check phase). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A bound on the work one turn of the event loop does: `await budget.take()` before each unit
 * (an object made cacheable, a change applied, a watch event) gives the loop a turn first once
 * this one has had `perTurn` units. `startSpent`: the caller's turn already did its share (parsing
 * the page the units come from), so the first unit waits for the next turn.
 */
export class TurnBudget {
  private readonly perTurn: number;
  private used: number;

  constructor(perTurn: number, { startSpent = false }: { startSpent?: boolean } = {}) {
    this.perTurn = perTurn;
    this.used = startSpent ? perTurn : 0;
  }

  async take(): Promise<void> {
    if (this.used >= this.perTurn) {
      await yieldToEventLoop();
      this.used = 0;
    }
    this.used++;
  }
}

/** How long runInTurns goes on through a computation's stages before it gives the event loop a turn. */
export const COMPUTE_MS_PER_TURN = 10;

/**
 * Runs a synchronous computation written as a generator to its end, giving the event loop a turn
 * at the first of its `yield`s reached once COMPUTE_MS_PER_TURN has passed since the last turn: a
 * long pure computation (a CloneSet's plan over thousands of pods) stays one function of its input
 * and holds the loop at most that long plus one stage, while a short one (a CloneSet of a few pods)
 * runs through without waiting on the loop at all. `now` is for tests.
 */
export async function runInTurns<T>(stages: Generator<void, T, void>, now: () => number = () => performance.now()): Promise<T> {
  let turnStarted = now();
  for (let next = stages.next(); ; next = stages.next()) {
    if (next.done) return next.value;
    if (now() - turnStarted >= COMPUTE_MS_PER_TURN) {
      await yieldToEventLoop();
      turnStarted = now();
    }
  }
}
