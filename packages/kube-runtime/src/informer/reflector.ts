// The reflector keeps a store in step with the apiserver (client-go's ListAndWatch):
//   list (page by page, each handed to the store before the next is fetched) -> replace the store -> watch from the list's resourceVersion with bookmarks
//   -> apply events, tracking the resourceVersion of each event and bookmark.
// A watch that ends cleanly (server timeout) is resumed from the last resourceVersion at once;
// 410 Gone (compaction, a too-old version after an apiserver restart) forces a fresh list; any other
// failure waits a jittered backoff and resumes. A watchdog restarts a watch that goes silent: quietly
// when the resource is idle, with a warning when the restarted watch shows it had missed changes.
import { GoneError, errorFromStatus } from '../client/errors.ts';
import { apiVersionOf } from '../client/gvr.ts';
import type { ResourceClient } from '../client/resource-client.ts';
import type { KubeObject } from '../client/types.ts';
import type { Logger } from '../logger.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import { sleep, type Clock, type TimerHandle } from '../util/clock.ts';
import { TurnBudget } from '../util/yield.ts';
import { Backoff } from './backoff.ts';
import { MISSED_CHANGES_WINDOW_MS, SilentWatchAbort, silentWatchVerdict } from './silent-watch.ts';

/** A full list, handed over page by page; nothing changes in the store before commit. */
export interface ReplaceSession<T> {
  /** Takes a page in (resolves once it has; it may give the event loop turns meanwhile). */
  addPage(items: readonly T[]): Promise<void>;
  /** The store becomes exactly the items of every page added; resolves with how many objects that added, changed or removed. */
  commit(resourceVersion: string): Promise<number>;
}

export interface ReflectorStore<T> {
  beginReplace(): ReplaceSession<T>;
  /** Applies a watched change; true when the store changed (a replayed version is not a change). */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T): boolean;
}

export interface ReflectorOptions<T extends KubeObject> {
  client: ResourceClient<T>;
  store: ReflectorStore<T>;
  clock: Clock;
  logger: Logger;
  metrics?: RuntimeMetrics;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  pageSize?: number;
  /** Watches last a random time in [min, 2*min) seconds, as client-go (5 min). */
  minWatchTimeoutSeconds?: number;
  /**
   * A watch silent for this long (no event, no bookmark) is presumed dead and restarted from the
   * last resourceVersion. kube-apiserver sends a bookmark every minute on a quiet watch, so the
   * default (90 s) finds a dead connection long before expectations expire (5 min) and the cache
   * would be planned from while frozen; a false alarm costs one watch request, not a relist.
   */
  silentWatchLimitMs?: number;
  backoff?: Backoff;
  random?: () => number;
}

const DEFAULT_SILENT_WATCH_LIMIT_MS = 90_000;
const GONE_AGAIN_WINDOW_MS = 1_000;

/**
 * Watch events applied per turn of the event loop. Events already received (a burst of pod
 * updates, or what queued in the socket while the process was paused) are otherwise read and
 * applied as one chain of microtasks, each object made cacheable (transform, shared values,
 * freeze: 0.1-0.4 ms a pod), holding timers such as the Lease renewal for the whole backlog.
 */
export const WATCH_EVENTS_PER_TURN = 100;

export class Reflector<T extends KubeObject> {
  private readonly o: ReflectorOptions<T>;
  private readonly backoff: Backoff;
  private readonly random: () => number;
  private relistedAt: number | undefined;
  private resourceVersion: string | undefined;
  /** When the apiserver last proved the cache current: a list, a watch event or a bookmark. */
  private lastHeardAt: number | undefined;
  /**
   * Set when a silent watch is restarted: the changes the next watch delivers within
   * MISSED_CHANGES_WINDOW_MS of opening (or a relist, if its resourceVersion is gone) were missed.
   */
  private catchUp: { missed: number; window?: TimerHandle } | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.o = options;
    this.random = options.random ?? Math.random;
    this.backoff = options.backoff ?? new Backoff({ random: this.random });
  }

  lastSyncResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** ms since the last list, watch event or bookmark (since run() began before any). */
  silentForMs(): number {
    return this.lastHeardAt === undefined ? 0 : Math.max(0, this.o.clock.now() - this.lastHeardAt);
  }

  /** Runs until the signal aborts; never rejects for API or network errors. */
  async run(signal: AbortSignal): Promise<void> {
    const resource = this.o.client.gvr.resource;
    this.lastHeardAt ??= this.o.clock.now();
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.list(signal);
        const started = this.o.clock.now();
        const outcome = await this.watch(signal);
        if (outcome === 'silent') continue; // not a failure: resume from the last resourceVersion at once
        if (outcome === 'progressed') {
          this.backoff.reset();
          continue; // clean end (server timeout): resume at once
        }
        // A watch closed at once without a single event: do not spin.
        if (this.o.clock.now() - started < 1000) await sleep(this.o.clock, this.backoff.next(), signal).catch(() => undefined);
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError) {
          // The first 410 relists at once (client-go); a 410 again within a second of that
          // relist means the apiserver keeps refusing (a proxy, a broken watch cache): back
          // off instead of listing in a hot loop.
          const again = this.relistedAt !== undefined && this.o.clock.now() - this.relistedAt < GONE_AGAIN_WINDOW_MS;
          const delay = again ? this.backoff.next() : 0;
          this.o.logger.info({ resource, resourceVersion: this.resourceVersion, err: err.message, retryInMs: Math.round(delay) }, 'resourceVersion expired, relisting');
          this.resourceVersion = undefined;
          // A catch-up in progress is settled by the relist, whatever it takes.
          this.catchUp?.window?.cancel();
          if (this.catchUp) this.catchUp.window = undefined;
          if (delay > 0) await sleep(this.o.clock, delay, signal).catch(() => undefined);
          this.relistedAt = this.o.clock.now();
          continue;
        }
        const delay = this.backoff.next();
        this.o.logger.warn({ resource, err, retryInMs: Math.round(delay) }, 'list/watch failed');
        await sleep(this.o.clock, delay, signal).catch(() => undefined);
      }
    }
    this.catchUp?.window?.cancel();
    this.catchUp = undefined;
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.o.metrics?.informerRelists.inc({ resource: this.o.client.gvr.resource });
    // List items come without apiVersion/kind, watch objects with them: make the cache uniform.
    const gvr = this.o.client.gvr;
    const typeMeta = { apiVersion: apiVersionOf(gvr), kind: gvr.kind };
    const session = this.o.store.beginReplace();
    let rv: string | undefined;
    const pages = this.o.client.listPages({ ...this.selectors(), limit: this.o.pageSize ?? 500, signal });
    for await (const page of pages) {
      rv ??= page.metadata?.resourceVersion;
      await session.addPage(page.items.map((item) => (item.kind ? item : { ...typeMeta, ...item })));
    }
    if (!rv) throw new Error('list answered without a resourceVersion');
    const changed = await session.commit(rv);
    this.resourceVersion = rv;
    this.lastHeardAt = this.o.clock.now();
    if (this.catchUp) {
      this.catchUp.missed += changed;
      this.endCatchUp();
    }
  }

  /** Logs how the silent watch's restart turned out (silentWatchVerdict) and ends the catch-up. */
  private endCatchUp(): void {
    const catchUp = this.catchUp;
    if (!catchUp) return;
    this.catchUp = undefined;
    catchUp.window?.cancel();
    const verdict = silentWatchVerdict(catchUp.missed);
    this.o.logger[verdict.level]({ resource: this.o.client.gvr.resource, missedChanges: catchUp.missed, resourceVersion: this.resourceVersion }, verdict.msg);
  }

  /**
   * One watch request: 'progressed' when it delivered anything, 'empty' on a clean close without a
   * single event, 'silent' when the watchdog ended it.
   */
  private async watch(signal: AbortSignal): Promise<'progressed' | 'empty' | 'silent'> {
    const minTimeout = this.o.minWatchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(minTimeout * (1 + this.random()));
    const abort = new AbortController();
    const onAbort = (): void => abort.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    // Aborted while the list ran: the listener above never fires, the watch must not start.
    if (signal.aborted) onAbort();
    // The server sends a bookmark every minute and ends the watch at timeoutSeconds; silence past
    // the limit means a dead connection nobody told us about (client-node #2127, #596).
    const silenceMs = Math.min(this.o.silentWatchLimitMs ?? DEFAULT_SILENT_WATCH_LIMIT_MS, (timeoutSeconds + 30) * 1000);
    let watchdog: TimerHandle | undefined;
    const arm = (): void => {
      watchdog?.cancel();
      watchdog = this.o.clock.setTimer(() => {
        // Routine on an idle resource; whether it hid missed changes is told after the restart.
        this.o.logger.debug({ resource: this.o.client.gvr.resource, silentMs: silenceMs, resourceVersion: this.resourceVersion }, 'watch went silent; restarting it');
        this.catchUp ??= { missed: 0 };
        abort.abort(new SilentWatchAbort('watch went silent'));
      }, silenceMs);
    };
    const silenced = (): boolean => abort.signal.aborted && abort.signal.reason instanceof SilentWatchAbort;
    let progressed = false;
    try {
      arm();
      if (this.catchUp && !this.catchUp.window) this.catchUp.window = this.o.clock.setTimer(() => this.endCatchUp(), MISSED_CHANGES_WINDOW_MS);
      const events = this.o.client.watch({
        ...this.selectors(),
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        signal: abort.signal,
      });
      const budget = new TurnBudget(WATCH_EVENTS_PER_TURN);
      for await (const event of events) {
        arm();
        progressed = true;
        await budget.take();
        this.lastHeardAt = this.o.clock.now();
        switch (event.type) {
          case 'ERROR':
            throw errorFromStatus(event.object, `WATCH ${this.o.client.gvr.resource}`);
          case 'BOOKMARK':
            this.resourceVersion = event.object.metadata?.resourceVersion ?? this.resourceVersion;
            break;
          default:
            if (this.o.store.apply(event.type, event.object) && this.catchUp) this.catchUp.missed++;
            this.resourceVersion = event.object.metadata?.resourceVersion ?? this.resourceVersion;
        }
      }
      if (silenced()) return 'silent';
      return progressed ? 'progressed' : 'empty';
    } catch (err) {
      // The watchdog's abort surfaces as the request's error (undici rejects with the reason).
      if (silenced()) return 'silent';
      throw err;
    } finally {
      watchdog?.cancel();
      signal.removeEventListener('abort', onAbort);
      abort.abort();
    }
  }

  private selectors(): { namespace?: string; labelSelector?: string; fieldSelector?: string } {
    return {
      ...(this.o.namespace ? { namespace: this.o.namespace } : {}),
      ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
      ...(this.o.fieldSelector ? { fieldSelector: this.o.fieldSelector } : {}),
    };
  }
}
