// A keyed work queue with client-go's guarantees:
//  - a key is queued at most once (dirty set), however often it is added;
//  - a key is handed to one worker at a time (processing set); an add while it is processed is
//    remembered and re-queues it once, after done();
//  - addAfter() delays an add (the earliest pending delay wins), addRateLimited() delays by the
//    rate limiter, forget() resets a key's backoff.
// Unlike client-go, get() stops handing out keys as soon as shutdown starts: a controller that
// stops (e.g. lost its lease) must not begin new work; whoever leads next re-lists anyway.
import type { RuntimeMetrics } from '../metrics.ts';
import { realClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface WorkQueueOptions<K> {
  /** Used as both `name` and `controller` labels of the workqueue_* metrics. */
  name: string;
  clock?: Clock;
  rateLimiter?: RateLimiter<K>;
  metrics?: RuntimeMetrics;
}

export class WorkQueue<K = string> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<K>;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly labels: { name: string; controller: string };

  private queue: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly addedAt = new Map<K, number>();
  private readonly startedAt = new Map<K, number>();
  private readonly delayed = new Map<K, { due: number; timer: TimerHandle }>();
  private waiters: (() => void)[] = [];
  private drainWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private metricsTimer: TimerHandle | undefined;

  constructor(options: WorkQueueOptions<K>) {
    this.name = options.name;
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
    this.metrics = options.metrics;
    this.labels = { name: options.name, controller: options.name };
    if (this.metrics) this.scheduleUnfinishedWorkUpdate();
  }

  /** Queues the key unless it is already queued; a key being processed is re-queued after done(). */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics?.workqueueAdds.inc(this.labels);
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Adds the key after delayMs. If the key already waits, the earlier time wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const due = this.clock.now() + delayMs;
    const existing = this.delayed.get(key);
    if (existing && existing.due <= due) return;
    existing?.timer.cancel();
    const timer = this.clock.setTimer(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { due, timer });
  }

  /**
   * Adds the key after its rate-limited backoff (at least minDelayMs, e.g. a server's
   * Retry-After); counts a retry.
   */
  addRateLimited(key: K, minDelayMs = 0): void {
    if (this.shuttingDown) return;
    this.metrics?.workqueueRetries.inc(this.labels);
    this.addAfter(key, Math.max(minDelayMs, this.rateLimiter.when(key)));
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * Waits for the next key and marks it processing; the caller must call done(key).
   * Resolves undefined once the queue is shutting down.
   */
  async get(): Promise<K | undefined> {
    for (;;) {
      if (this.shuttingDown) return undefined;
      if (this.head < this.queue.length) return this.take();
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Non-blocking get: the next key, or undefined when none is queued. */
  tryGet(): K | undefined {
    if (this.shuttingDown || this.head >= this.queue.length) return undefined;
    return this.take();
  }

  /** Ends processing of the key; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    if (!this.processing.delete(key)) return;
    const started = this.startedAt.get(key);
    this.startedAt.delete(key);
    if (started !== undefined) {
      this.metrics?.workqueueWorkDuration.observe(this.labels, (this.clock.now() - started) / 1000);
    }
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** Queued keys (not counting those processing or delayed). */
  len(): number {
    return this.queue.length - this.head;
  }

  processingCount(): number {
    return this.processing.size;
  }

  isProcessing(key: K): boolean {
    return this.processing.has(key);
  }

  /** Keys waiting for a delayed add. */
  delayedCount(): number {
    return this.delayed.size;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Stops accepting keys and releases every waiting get(); delayed adds are dropped. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) timer.cancel();
    this.delayed.clear();
    this.metricsTimer?.cancel();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    if (this.processing.size === 0) this.resolveDrain();
  }

  /** shutDown(), then resolves once every key being processed is done(). */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return;
    await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private push(key: K): void {
    this.queue.push(key);
    this.addedAt.set(key, this.clock.now());
    this.metrics?.workqueueDepth.inc(this.labels);
    this.waiters.shift()?.();
  }

  private take(): K {
    const key = this.queue[this.head] as K;
    this.head++;
    // Compact once the consumed prefix dominates, keeping take() amortised O(1).
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.processing.add(key);
    this.dirty.delete(key);
    const now = this.clock.now();
    this.startedAt.set(key, now);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (this.metrics) {
      this.metrics.workqueueDepth.dec(this.labels);
      if (added !== undefined) this.metrics.workqueueQueueDuration.observe(this.labels, (now - added) / 1000);
    }
    return key;
  }

  private resolveDrain(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  // client-go refreshes the in-flight gauges every 500 ms rather than on each scrape.
  private scheduleUnfinishedWorkUpdate(): void {
    this.metricsTimer = this.clock.setTimer(() => {
      this.updateUnfinishedWork();
      if (!this.shuttingDown) this.scheduleUnfinishedWorkUpdate();
    }, 500, { unref: true });
  }

  private updateUnfinishedWork(): void {
    if (!this.metrics) return;
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const started of this.startedAt.values()) {
      const age = (now - started) / 1000;
      total += age;
      longest = Math.max(longest, age);
    }
    this.metrics.workqueueUnfinishedWork.set(this.labels, total);
    this.metrics.workqueueLongestRunning.set(this.labels, longest);
  }
}
