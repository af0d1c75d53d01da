// One shared informer per (GVR, namespace scope, selectors): every controller asking for pods in
// a scope gets the same cache, so each object is listed, watched and stored once.
import type { KubeClient } from '../client/client.ts';
import type { GroupVersionResource } from '../client/gvr.ts';
import type { KubeObject } from '../client/types.ts';
import type { Logger } from '../logger.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import type { Clock } from '../util/clock.ts';
import type { IndexFunc } from './indexer.ts';
import { SharedIndexInformer } from './shared-informer.ts';
import type { CachePools } from './share-equal-values.ts';
import { StringPool } from './string-pool.ts';
import { SubtreePool } from './subtree-pool.ts';
import { stripManagedFields, type ObjectTransform } from './transform.ts';

export interface InformerFactoryOptions {
  client: KubeClient;
  /** Default resync for informers that do not set their own (ms, 0 = never). */
  defaultResyncMs?: number;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  minWatchTimeoutSeconds?: number;
  /** A shard of a ring: the informers of these resources hold only the objects this selector picks. */
  shardScope?: ShardScope;
}

export interface ShardScope {
  /** The shard label selector, e.g. shard.alpha.sharding.timebertt.dev/ring=shard-0. */
  labelSelector: string;
  /** The ring's resources (compared by group and resource). */
  resources: readonly Pick<GroupVersionResource, 'group' | 'resource'>[];
}

export interface InformerScope<T> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resyncPeriodMs?: number;
  indexers?: Record<string, IndexFunc<T>>;
  /**
   * What the cache keeps of each object (default stripManagedFields). Shared with every other
   * caller of the same scope, so asking again with another transform is an error.
   */
  transform?: ObjectTransform<T>;
  /**
   * On a shard, a cache of a ring resource holds only this shard's objects; true asks for every
   * shard's (a reader whose work spans shards). Without a ring it changes nothing.
   */
  acrossShards?: boolean;
}

export class InformerFactory {
  private readonly o: InformerFactoryOptions;
  private readonly informers = new Map<string, SharedIndexInformer<KubeObject>>();
  private signal: AbortSignal | undefined;
  private readonly runs: Promise<void>[] = [];
  /** One set of pools for every cache: a pod and its ControllerRevision share the template's values. */
  readonly pools: CachePools & { strings: StringPool } = { strings: new StringPool(), subtrees: new SubtreePool() };

  constructor(options: InformerFactoryOptions) {
    this.o = options;
  }

  /**
   * The shared informer for the GVR and scope. Indexers given here are added if missing; asking
   * again for the same scope returns the same informer. Created after start(): starts at once.
   */
  informerFor<T extends KubeObject>(gvr: GroupVersionResource, requested: InformerScope<T> = {}): SharedIndexInformer<T> {
    const scope = this.shardScoped(gvr, requested);
    const id = [gvr.group, gvr.version, gvr.resource, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? ''].join('|');
    let informer = this.informers.get(id) as SharedIndexInformer<T> | undefined;
    if (!informer) {
      informer = new SharedIndexInformer<T>({
        client: this.o.client.resource<T>(gvr),
        ...(scope.namespace ? { namespace: scope.namespace } : {}),
        ...(scope.labelSelector ? { labelSelector: scope.labelSelector } : {}),
        ...(scope.fieldSelector ? { fieldSelector: scope.fieldSelector } : {}),
        resyncPeriodMs: scope.resyncPeriodMs ?? this.o.defaultResyncMs ?? 0,
        clock: this.o.clock,
        logger: this.o.logger,
        metrics: this.o.metrics,
        ...(this.o.minWatchTimeoutSeconds ? { minWatchTimeoutSeconds: this.o.minWatchTimeoutSeconds } : {}),
        transform: scope.transform,
        pools: this.pools,
      });
      this.informers.set(id, informer as unknown as SharedIndexInformer<KubeObject>);
      if (this.signal) this.runs.push(informer.run(this.signal));
    }
    if ((scope.transform ?? stripManagedFields) !== informer.transform) {
      // A second transform would silently see the first one's objects: fields it needs missing.
      throw new Error(`the ${gvr.resource} informer for this scope already caches through another transform`);
    }
    if (scope.indexers) {
      const names = informer.indexer.indexNames();
      const missing = Object.fromEntries(Object.entries(scope.indexers).filter(([n]) => !names.has(n)));
      informer.addIndexers(missing);
    }
    return informer;
  }

  /** The scope with the shard's selector added when the resource is one of the ring's. */
  private shardScoped<T>(gvr: GroupVersionResource, scope: InformerScope<T>): InformerScope<T> {
    const shard = this.o.shardScope;
    if (!shard || scope.acrossShards || !shard.resources.some((r) => r.group === gvr.group && r.resource === gvr.resource)) return scope;
    return { ...scope, labelSelector: scope.labelSelector ? `${scope.labelSelector},${shard.labelSelector}` : shard.labelSelector };
  }

  /** Every informer created so far. */
  all(): SharedIndexInformer<KubeObject>[] {
    return [...this.informers.values()];
  }

  /** Starts every informer (and any created later) until the signal aborts. */
  start(signal: AbortSignal): void {
    if (this.signal) return;
    this.signal = signal;
    for (const i of this.informers.values()) this.runs.push(i.run(signal));
  }

  /** Resolves when every informer created so far has synced. */
  async waitForCacheSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
  }

  /** Resolves after every informer's loop has ended (after the start signal aborted). */
  async stopped(): Promise<void> {
    await Promise.all(this.runs);
  }
}
