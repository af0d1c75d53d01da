// A controller: event sources map objects to keys, a WorkQueue dedupes them, at most
// maxConcurrentReconciles reconciles run at once (p-queue), each within a deadline, and what the
// reconcile returns (./action.ts) or throws (./error-policy.ts) decides what happens next.
// Controllers are declared with ControllerBuilder (./builder.ts); this is the loop it runs.
import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { EventRecorder } from '../events.ts';
import type { ResourceEventHandler, EventSource } from '../informer/types.ts';
import { DEFAULT_CACHE_STALE_AFTER_MS } from '../informer/staleness.ts';
import { splitKey } from '../keys.ts';
import { silentLogger, type Logger } from '../logger.ts';
import { initControllerSeries, type RuntimeMetrics } from '../metrics.ts';
import type { RateLimiter } from '../queue/rate-limiter.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import { realClock, sleep, type Clock } from '../util/clock.ts';
import { yieldToEventLoop } from '../util/yield.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';
import type { ReconcileAction } from './action.ts';
import { errorPolicy } from './error-policy.ts';
import { ControllerStoppedError, ReconcileTimeoutError, TerminalError } from './errors.ts';

export interface ReconcileContext {
  readonly key: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly reconcileID: string;
  /** Carries controller, key and reconcileID on every line. */
  readonly logger: Logger;
  /** Aborted when the controller stops (shutdown, lost lease) or the reconcile's deadline passes: stop writing and return. */
  readonly signal: AbortSignal;
  /** How many times this key failed in a row before this attempt. */
  readonly retries: number;
}

export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileAction>;

/** Maps an object (and its event) to the keys to reconcile; undefined or [] means none. */
export type MapObjectToKeys<T> = (obj: DeepReadonly<T>) => Iterable<string> | string | undefined;

/** Whether an update (old, new) changes what the controller reads (controller-runtime's update predicates). */
export type UpdatePredicate<T> = (oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>) => boolean;

/** Workers per controller unless told otherwise (kruise runs 3): one slow key cannot stall the rest. */
export const DEFAULT_MAX_CONCURRENT_RECONCILES = 3;

/**
 * How long one reconcile may run before its signal aborts (requests in flight are cancelled and
 * the key is retried with backoff): a pass blocked by slow API calls gives its worker back.
 */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 60_000;

/** How soon a key skipped for a stale cache is looked at again. */
const STALE_CACHE_RECHECK_MS = 5_000;

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** Default DEFAULT_MAX_CONCURRENT_RECONCILES. */
  maxConcurrentReconciles?: number;
  /** Deadline of one reconcile in ms (default DEFAULT_RECONCILE_TIMEOUT_MS; 0: none). */
  reconcileTimeoutMs?: number;
  /** A source silent longer than this is stale: keys wait instead of being reconciled (default 2 min). */
  cacheStaleAfterMs?: number;
  rateLimiter?: RateLimiter<string>;
  /** The queue to take keys from, made beforehand so that expectations and triggers can enqueue (the builder's); else a new one. */
  queue?: WorkQueue<string>;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  /** Records the Warning Event a failed reconcile names (error-policy.ts). */
  recorder?: EventRecorder;
  /** How often to check sources' hasSynced() before starting workers. */
  syncPollMs?: number;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue<string>;
  private readonly reconciler: Reconciler;
  private readonly concurrency: number;
  private readonly reconcileTimeoutMs: number;
  private readonly cacheStaleAfterMs: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly recorder: EventRecorder | undefined;
  private readonly syncPollMs: number;
  private readonly sources: EventSource<unknown>[] = [];
  private readonly unsubscribes: (() => void)[] = [];
  private readonly stopController = new AbortController();
  private started = false;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconciler = options.reconcile;
    this.concurrency = Math.max(1, options.maxConcurrentReconciles ?? DEFAULT_MAX_CONCURRENT_RECONCILES);
    this.reconcileTimeoutMs = Math.max(0, options.reconcileTimeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS);
    this.cacheStaleAfterMs = options.cacheStaleAfterMs ?? DEFAULT_CACHE_STALE_AFTER_MS;
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger()).child({ controller: options.name });
    this.metrics = options.metrics;
    this.recorder = options.recorder;
    this.syncPollMs = options.syncPollMs ?? 100;
    this.queue = options.queue ?? new WorkQueue<string>({ name: options.name, clock: this.clock, rateLimiter: options.rateLimiter, metrics: options.metrics });
    if (options.metrics) {
      initControllerSeries(options.metrics, options.name);
      options.metrics.maxConcurrentReconciles.set({ controller: options.name }, this.concurrency);
    }
  }

  /**
   * Enqueues the keys mapObjectToKeys returns for every add, update (old and new object, so a
   * change of owner or labels reaches both sides) and delete the source delivers; an update only
   * when `changed` (if given) says it changes what the controller reads (a resync always passes).
   */
  watches<T>(source: EventSource<T>, mapObjectToKeys: MapObjectToKeys<T>, changed?: UpdatePredicate<T>): this {
    const enqueue = (obj: DeepReadonly<T>): void => {
      try {
        const keys = mapObjectToKeys(obj);
        if (keys === undefined) return;
        if (typeof keys === 'string') this.queue.add(keys);
        else for (const k of keys) this.queue.add(k);
      } catch (err) {
        this.logger.error({ err }, 'mapping an event to keys failed');
      }
    };
    const handler: ResourceEventHandler<T> = {
      onAdd: (obj) => enqueue(obj),
      onUpdate: (oldObj, newObj) => {
        if (oldObj !== newObj && changed && !changed(oldObj, newObj)) return;
        if (oldObj !== newObj) enqueue(oldObj);
        enqueue(newObj);
      },
      onDelete: (obj) => enqueue(obj),
    };
    this.sources.push(source);
    this.unsubscribes.push(source.addEventHandler(handler));
    return this;
  }

  /** A cache the controller waits for (synced before workers start, fresh before a reconcile) without taking its events. */
  waitsFor(source: EventSource<unknown>): this {
    this.sources.push(source);
    return this;
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  /**
   * Waits for every source to sync, then runs workers until the signal aborts or stop() is called;
   * resolves after in-flight reconciles have returned (they see ctx.signal aborted).
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.started) throw new Error(`controller ${this.name} already started`);
    this.started = true;
    const stop = this.stopController.signal;
    const onAbort = (): void => this.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.stop();
    try {
      while (!stop.aborted && !this.sources.every((s) => s.hasSynced())) {
        await sleep(this.clock, this.syncPollMs, stop).catch(() => undefined);
      }
      if (stop.aborted) return;
      this.logger.info({ workers: this.concurrency }, 'starting workers');
      await this.runWorkers(stop);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      for (const u of this.unsubscribes) u();
      this.logger.info('all workers finished');
    }
  }

  /**
   * Between start() and stop(): the manager starts a controller only while this replica leads, so
   * a handler on a shared informer (which standbys run too) can tell whether to act on an event.
   */
  get running(): boolean {
    return this.started && !this.stopController.signal.aborted;
  }

  /** Stops handing out keys and aborts in-flight reconciles' signals; start() then resolves. */
  stop(): void {
    if (this.stopController.signal.aborted) return;
    this.stopController.abort(new ControllerStoppedError(this.name));
    this.queue.shutDown();
  }

  private async runWorkers(stop: AbortSignal): Promise<void> {
    const pool = new PQueue({ concurrency: this.concurrency });
    for (;;) {
      // Take a key only when a worker is free, so queued keys keep deduplicating meanwhile.
      while (pool.pending >= this.concurrency) {
        await new Promise<void>((resolve) => pool.addEventListener('next', () => resolve(), { once: true }));
      }
      const key = await this.queue.get();
      if (key === undefined) break;
      // A worker gives the event loop one turn after each reconcile before it takes the next key:
      // back-to-back passes that write nothing never leave the microtask queue, so at 1,000 pods
      // they held timers (the Lease renewal) and the webhooks off for seconds. The turn also lets
      // the watch events it admits fold into the next pass.
      pool.add(() => this.processItem(key, stop).finally(yieldToEventLoop)).catch((err: unknown) => {
        this.logger.error({ err, key }, 'worker failed');
      });
    }
    await pool.onIdle();
    await this.queue.shutDownWithDrain();
  }

  /** The longest silence among this controller's sources, when it is past the threshold. */
  private staleSourceSilenceMs(): number | undefined {
    let longest = 0;
    for (const s of this.sources) longest = Math.max(longest, s.silentForMs?.() ?? 0);
    return longest > this.cacheStaleAfterMs ? longest : undefined;
  }

  private async processItem(key: string, stop: AbortSignal): Promise<void> {
    const silentMs = this.staleSourceSilenceMs();
    if (silentMs !== undefined) {
      // Planning from a frozen cache would repeat creates and deletes the cache never showed.
      this.logger.debug({ key, silentMs, staleAfterMs: this.cacheStaleAfterMs }, 'cache stale: not reconciling; checking again shortly');
      this.queue.forget(key);
      this.queue.addAfter(key, STALE_CACHE_RECHECK_MS);
      this.queue.done(key);
      return;
    }
    const reconcileID = randomUUID();
    const logger = this.logger.child({ key, reconcileID });
    const labels = { controller: this.name };
    const started = this.clock.now();
    this.metrics?.activeWorkers.inc(labels);
    let result: 'success' | 'error' | 'requeue' | 'requeue_after' | undefined = 'success';
    const deadline = new AbortController();
    const timer = this.reconcileTimeoutMs > 0 ? this.clock.setTimer(() => deadline.abort(new ReconcileTimeoutError(this.reconcileTimeoutMs)), this.reconcileTimeoutMs) : undefined;
    try {
      let ns: string | undefined;
      let name: string;
      try {
        ({ namespace: ns, name } = splitKey(key));
      } catch (err) {
        throw new TerminalError(`cannot parse key ${key}`, { cause: err });
      }
      const ctx: ReconcileContext = {
        key,
        namespace: ns,
        name,
        reconcileID,
        logger,
        signal: AbortSignal.any([stop, deadline.signal]),
        retries: this.queue.numRequeues(key),
      };
      const action = await this.reconciler(key, ctx);
      this.queue.forget(key);
      if (action.kind === 'requeueAfter') {
        result = 'requeue_after';
        this.queue.addAfter(key, action.ms);
      }
    } catch (thrown) {
      // Whatever the reconciler threw once its deadline passed, the deadline is why.
      const err: unknown = deadline.signal.aborted ? deadline.signal.reason : thrown;
      if (stop.aborted) {
        // Shutting down: requests were cancelled on purpose; the next leader picks the key up.
        logger.debug({ err }, 'reconcile interrupted by shutdown');
        result = undefined;
        return;
      }
      const decision = errorPolicy(err);
      if (deadline.signal.aborted) this.metrics?.reconcileTimeouts.inc(labels);
      if (decision.lostRace) {
        result = 'requeue';
        logger.debug({ err }, 'a write lost a race; replanning from a fresher cache');
      } else {
        result = 'error';
        this.metrics?.reconcileErrors.inc(labels);
        if (!(err instanceof Error)) this.metrics?.reconcilePanics.inc(labels);
        if (decision.retry === 'drop') logger.error({ err }, 'reconciler error (terminal, not retried)');
        else logger.error({ err, retries: this.queue.numRequeues(key) }, 'reconciler error');
      }
      if (decision.event) this.recorder?.event(decision.event.regarding, 'Warning', decision.event.reason, decision.event.action, (err as Error).message);
      if (decision.retry === 'drop') this.queue.forget(key);
      // A throttled apiserver says when to come back; never sooner.
      else this.queue.addRateLimited(key, decision.notBeforeMs);
    } finally {
      timer?.cancel();
      if (result) this.metrics?.reconcileTotal.inc({ controller: this.name, result });
      this.metrics?.reconcileTime.observe(labels, (this.clock.now() - started) / 1000);
      this.metrics?.activeWorkers.dec(labels);
      this.queue.done(key);
    }
  }
}
