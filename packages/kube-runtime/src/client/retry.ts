// client-go's retry.RetryOnConflict: re-run a read-modify-write when it lost a race (409).
import { realClock, sleep, type Clock } from '../util/clock.ts';
import { isConflict } from './errors.ts';

export interface RetryOptions {
  /** Attempts in total (client-go's DefaultRetry: 5). */
  steps?: number;
  /** First delay, doubled each time with up to 10% jitter (client-go: 10 ms). */
  delayMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/** Runs fn; on Conflict re-runs it (fn must re-read what it modifies). Other errors propagate. */
export async function retryOnConflict<R>(fn: (attempt: number) => Promise<R>, options: RetryOptions = {}): Promise<R> {
  const steps = options.steps ?? 5;
  const clock = options.clock ?? realClock;
  let delay = options.delayMs ?? 10;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isConflict(err) || attempt >= steps) throw err;
      await sleep(clock, delay * (1 + 0.1 * Math.random()), options.signal);
      delay *= 2;
    }
  }
}
