// Waits for a promise at most `ms` on the given clock: shutdown steps must not hang the process.
import type { Clock } from './clock.ts';

/** true when `work` settled (resolved or rejected) within `ms`, false when the time ran out. */
export function within(clock: Clock, work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = clock.setTimer(() => resolve(false), Math.max(0, ms));
    const settled = (): void => {
      timer.cancel();
      resolve(true);
    };
    work.then(settled, settled);
  });
}
