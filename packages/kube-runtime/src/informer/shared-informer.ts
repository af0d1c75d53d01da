// One reflector feeding one indexed store and many handlers (client-go's SharedIndexInformer).
// Handlers see frozen objects: the stored instance itself, never a copy.
import type { ResourceClient } from '../client/resource-client.ts';
import type { KubeObject } from '../client/types.ts';
import { namespacedKey, objectKey } from '../keys.ts';
import { silentLogger, type Logger } from '../logger.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import { parseLabelSelector } from '../selectors.ts';
import { realClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { deepFreeze, type DeepReadonly } from '../util/deep-readonly.ts';
import { TurnBudget } from '../util/yield.ts';
import { Indexer, type IndexFunc } from './indexer.ts';
import { Reflector, type ReflectorStore, type ReplaceSession } from './reflector.ts';
import { planRelist, sameVersion } from './relist.ts';
import { shareEqualValues, type CachePools } from './share-equal-values.ts';
import { StringPool } from './string-pool.ts';
import { SubtreePool } from './subtree-pool.ts';
import { stripManagedFields, type ObjectTransform } from './transform.ts';
import type { CachedSource } from './store.ts';
import type { ResourceEventHandler } from './types.ts';

/**
 * Relist changes applied between two turns of the event loop. Applied all at once, the initial
 * list of 50,000 pods held the loop for 0.2-1.2 s (every object indexed and handed to every
 * handler), timers such as the Lease renewal included; a thousand take a few milliseconds.
 */
export const RELIST_CHANGES_PER_TURN = 1_000;
/**
 * Listed objects made cacheable (transformed, their values shared, frozen) between two turns of
 * the event loop. That costs 0.1-0.4 ms for a pod as served (about 6 KiB of JSON), more while the
 * code is still cold: a whole page of 500 held the loop 50-230 ms at start-up; a hundred, a tenth
 * of a second at the very worst. An object already cached at its listed version costs a lookup
 * and is not counted.
 */
export const LISTED_OBJECTS_PER_TURN = 100;

export interface InformerOptions<T extends KubeObject> {
  client: ResourceClient<T>;
  /** Watch one namespace; all namespaces when undefined. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Re-deliver every cached object as an update this often (ms), without listing. 0 = never. */
  resyncPeriodMs?: number;
  indexers?: Record<string, IndexFunc<T>>;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  pageSize?: number;
  minWatchTimeoutSeconds?: number;
  /** Applied to every object before it is cached and handed to handlers; default: stripManagedFields. */
  transform?: ObjectTransform<T>;
  /** Where equal strings and subtrees of the cached objects are shared (InformerFactory shares its pools across its informers); default: the informer's own. */
  pools?: CachePools;
}

export class SharedIndexInformer<T extends KubeObject> implements CachedSource<T>, ReflectorStore<T> {
  readonly indexer: Indexer<T>;
  /** Plural resource name, for metrics and reports. */
  readonly resource: string;
  readonly namespace: string | undefined;
  private readonly handlers = new Set<ResourceEventHandler<T>>();
  private readonly reflector: Reflector<T>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly resyncPeriodMs: number;
  /** Applied to every object before it is cached (InformerOptions.transform). */
  readonly transform: ObjectTransform<T>;
  /** Equal strings and subtrees of the cached objects share one instance through these (share-equal-values.ts). */
  readonly pools: CachePools;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private resyncTimer: TimerHandle | undefined;

  constructor(options: InformerOptions<T>) {
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger()).child({ informer: options.client.gvr.resource });
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.transform = options.transform ?? stripManagedFields;
    this.pools = options.pools ?? { strings: new StringPool(), subtrees: new SubtreePool() };
    this.indexer = new Indexer<T>(options.indexers);
    this.resource = options.client.gvr.resource;
    this.namespace = options.namespace;
    this.reflector = new Reflector<T>({
      client: options.client,
      store: this,
      clock: this.clock,
      logger: this.logger,
      metrics: options.metrics,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
      ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      ...(options.minWatchTimeoutSeconds ? { minWatchTimeoutSeconds: options.minWatchTimeoutSeconds } : {}),
    });
  }

  /**
   * Registers handlers. If the cache already holds objects they are delivered as adds first,
   * so a late handler sees the same world as an early one.
   */
  addEventHandler(handler: ResourceEventHandler<T>): () => void {
    this.handlers.add(handler);
    for (const obj of this.indexer.values()) this.call(handler, 'onAdd', () => handler.onAdd?.(obj, true));
    return () => this.handlers.delete(handler);
  }

  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    this.indexer.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list is in the cache; rejects if the signal aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return;
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  lastSyncResourceVersion(): string | undefined {
    return this.reflector.lastSyncResourceVersion();
  }

  /** ms since the last list, watch event or bookmark: how far behind the cache may be. */
  silentForMs(): number {
    return this.reflector.silentForMs();
  }

  /** Runs list/watch until the signal aborts. Idempotent: a second call returns the same run. */
  run(signal: AbortSignal): Promise<void> {
    this.running ??= (async () => {
      this.scheduleResync(signal);
      await this.reflector.run(signal);
      this.resyncTimer?.cancel();
    })();
    return this.running;
  }

  // ---- read side (listers) ----

  get(namespace: string | undefined, name: string): DeepReadonly<T> | undefined {
    return this.indexer.getByKey(namespacedKey(namespace, name));
  }

  getByKey(key: string): DeepReadonly<T> | undefined {
    return this.indexer.getByKey(key);
  }

  /** Lists from the cache, through an index where the query allows it. */
  list(query: { namespace?: string; labelSelector?: string } = {}): DeepReadonly<T>[] {
    return this.indexer.list({
      ...(query.namespace ? { namespace: query.namespace } : {}),
      ...(query.labelSelector ? { labelSelector: parseLabelSelector(query.labelSelector) } : {}),
    });
  }

  byIndex(indexName: string, value: string): DeepReadonly<T>[] {
    return this.indexer.byIndex(indexName, value);
  }

  // ---- write side (fed by the reflector) ----

  /**
   * A relist, page by page: an object whose resourceVersion is the cached one keeps its cached
   * instance (the listed copy is dropped with its page), others are transformed and frozen as
   * they come, LISTED_OBJECTS_PER_TURN per turn of the event loop. The cache changes only at
   * commit, RELIST_CHANGES_PER_TURN changes per turn of the event loop: a reader between two turns sees some objects at their listed version and others
   * not yet, as it would while a watch delivers the same changes (client-go's informer applies a
   * relist's deltas one by one too); the informer counts as synced once every change is in.
   */
  beginReplace(): ReplaceSession<T> {
    const listed = new Map<string, DeepReadonly<T>>();
    return {
      addPage: async (items) => {
        // This turn parsed the page (20-30 ms for 500 pods): the objects are made on the next ones.
        const budget = new TurnBudget(LISTED_OBJECTS_PER_TURN, { startSpent: true });
        for (const raw of items) {
          const key = objectKey(raw);
          const cached = this.indexer.getByKey(key);
          if (cached !== undefined && sameVersion(cached, raw)) {
            listed.set(key, cached);
            continue;
          }
          await budget.take();
          listed.set(key, this.cacheable(raw));
        }
      },
      commit: () => this.commitReplace(listed),
    };
  }

  private async commitReplace(listed: ReadonlyMap<string, DeepReadonly<T>>): Promise<number> {
    const initial = !this.synced;
    // Nothing else changes this store meanwhile: the watch starts once the commit is done.
    const changes = planRelist(this.indexer, listed);
    const budget = new TurnBudget(RELIST_CHANGES_PER_TURN);
    for (const change of changes) {
      await budget.take();
      if (change.type === 'delete') {
        this.indexer.delete(change.key);
        // Deleted while we were not watching: deliver the last state we knew.
        this.dispatch('onDelete', (h) => h.onDelete?.(change.old, true));
        continue;
      }
      this.indexer.set(change.obj);
      if (change.type === 'update') this.dispatch('onUpdate', (h) => h.onUpdate?.(change.old, change.obj));
      else this.dispatch('onAdd', (h) => h.onAdd?.(change.obj, initial));
    }
    if (!this.synced) {
      this.synced = true;
      const waiters = this.syncWaiters;
      this.syncWaiters = [];
      for (const w of waiters) w();
    }
    return changes.length;
  }

  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: T): boolean {
    const obj = this.cacheable(raw);
    const key = objectKey(obj);
    const old = this.indexer.getByKey(key);
    if (type === 'DELETED') {
      if (!old) return false;
      this.indexer.delete(key);
      // The event carries the object as it was when deleted: the true final state.
      this.dispatch('onDelete', (h) => h.onDelete?.(obj, false));
      return true;
    }
    // A replayed event (same version) after a reconnect is not a change.
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return false;
    this.indexer.set(obj);
    if (old) this.dispatch('onUpdate', (h) => h.onUpdate?.(old, obj));
    else this.dispatch('onAdd', (h) => h.onAdd?.(obj, false));
    return true;
  }

  /** What the cache stores of an object: transformed, its equal values shared, then frozen (which makes sharing safe). */
  private cacheable(raw: T): DeepReadonly<T> {
    return deepFreeze(shareEqualValues(this.transform(raw), this.pools));
  }

  private scheduleResync(signal: AbortSignal): void {
    if (this.resyncPeriodMs <= 0 || signal.aborted) return;
    this.resyncTimer = this.clock.setTimer(() => {
      if (signal.aborted) return;
      if (this.synced) {
        for (const obj of this.indexer.values()) this.dispatch('onUpdate', (h) => h.onUpdate?.(obj, obj));
      }
      this.scheduleResync(signal);
    }, this.resyncPeriodMs);
  }

  private dispatch(what: string, fn: (h: ResourceEventHandler<T>) => void): void {
    for (const h of this.handlers) this.call(h, what, () => fn(h));
  }

  // A throwing handler must not break the informer or the other handlers.
  private call(_h: ResourceEventHandler<T>, what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error({ err, handler: what }, 'event handler threw');
    }
  }
}
