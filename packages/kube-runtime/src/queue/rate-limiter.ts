// Per-item retry delays (client-go workqueue rate limiters): how long before a failed key comes back.
import type { Clock } from '../util/clock.ts';
import { TokenBucket } from '../util/token-bucket.ts';

export interface RateLimiter<K> {
  /** Delay in ms before the item may be retried; counts one more failure. */
  when(item: K): number;
  /** The item succeeded: reset its failure history. */
  forget(item: K): void;
  numRequeues(item: K): number;
}

/** base * 2^failures, capped; client-go's defaults are 5 ms and 1000 s. */
export class ItemExponentialFailureRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(baseDelayMs = 5, maxDelayMs = 1_000_000) {
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
  }

  when(item: K): number {
    const exp = this.failures.get(item) ?? 0;
    this.failures.set(item, exp + 1);
    // 2^exp overflows to Infinity long before exp gets dangerous, and min() caps it.
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** exp);
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket across all items, so a storm of failures cannot hammer the apiserver. */
export class BucketRateLimiter<K> implements RateLimiter<K> {
  private readonly bucket: TokenBucket;

  constructor(qps: number, burst: number, clock: Clock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: K): number {
    return this.bucket.reserve();
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}

/** The longest delay of its limiters. */
export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    this.limiters = limiters;
  }

  when(item: K): number {
    let delay = 0;
    for (const l of this.limiters) delay = Math.max(delay, l.when(item));
    return delay;
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let n = 0;
    for (const l of this.limiters) n = Math.max(n, l.numRequeues(item));
    return n;
  }
}

/** client-go's DefaultControllerRateLimiter: max(per-item 5 ms..1000 s, bucket 10 qps / 100 burst). */
export function defaultControllerRateLimiter<K>(clock: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>(5, 1_000_000),
    new BucketRateLimiter<K>(10, 100, clock),
  );
}
