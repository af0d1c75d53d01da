// Time source for everything that waits or measures: injectable so unit tests run on fake time.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Runs fn once after ms; the handle cancels it. A pending timer keeps the process alive (a
   * leader-election retry must not let the process exit) unless `unref` is set, which
   * housekeeping timers (metrics refresh) use.
   */
  setTimer(fn: () => void, ms: number, options?: { unref?: boolean }): TimerHandle;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms, options) {
    // setTimeout fires at once beyond 2^31-1 ms; clamp instead.
    const t = setTimeout(fn, Math.min(Math.max(0, ms), 2 ** 31 - 1));
    if (options?.unref) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after ms on the given clock, or rejects with the signal's reason when it aborts first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal));
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

/**
 * A manually driven clock for tests: time moves only through advance(), timers fire in due order.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { due: this.current + Math.max(0, ms), fn });
    return { cancel: () => this.timers.delete(id) };
  }

  /** Number of timers not yet fired. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Moves time forward, firing due timers in order; awaits microtasks between timers. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      let nextId: number | undefined;
      let nextDue = Infinity;
      for (const [id, t] of this.timers) {
        if (t.due <= target && t.due < nextDue) {
          nextDue = t.due;
          nextId = id;
        }
      }
      if (nextId === undefined) break;
      const timer = this.timers.get(nextId);
      this.timers.delete(nextId);
      this.current = Math.max(this.current, nextDue);
      timer?.fn();
    }
    this.current = target;
    await flushMicrotasks();
  }
}

/** Lets pending promise callbacks run (a few rounds, for chained awaits). */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
