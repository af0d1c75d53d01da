// A token bucket in the manner of golang.org/x/time/rate: reservations may drive the balance
// negative, and the deficit is the caller's wait. Shared by the client rate limit and the queue.
import { sleep, type Clock } from './clock.ts';

export class TokenBucket {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  /** qps <= 0 or Infinity means unlimited. */
  constructor(qps: number, burst: number, clock: Clock) {
    this.qps = qps;
    this.burst = Math.max(1, burst);
    this.clock = clock;
    this.tokens = this.burst;
    this.last = clock.now();
  }

  get unlimited(): boolean {
    return !(this.qps > 0 && Number.isFinite(this.qps));
  }

  /** Takes one token now and returns how many ms the caller must wait before using it. */
  reserve(): number {
    if (this.unlimited) return 0;
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Waits for a token. Returns the time waited in ms. */
  async wait(signal?: AbortSignal): Promise<number> {
    const delay = this.reserve();
    if (delay > 0) await sleep(this.clock, delay, signal);
    return delay;
  }
}
