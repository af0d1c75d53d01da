// Declares a controller in one expression, as controller-runtime's
// `ControllerManagedBy(mgr).For(..).Owns(..).Complete(r)` and kube-rs's
// `Controller::new(..).owns(..).run(reconcile, error_policy, ctx)` do:
//
//   manager
//     .controller('cloneset', { maxConcurrentReconciles, expectationTimeoutMs })
//     .for(cloneSets, { groupKind: CLONESET_GK })      the primary resource: its own key
//     .for(rules, { changed: specChanged })             ... an update only when it changes what is read
//     .owns(pods, { expectations: (pod) => name })      keyed by their controller reference
//     .watches(services, (svc) => keysOf(svc))          any other mapping to keys
//     .waitsFor(nodes)                                  a cache read in reconciles, events unused
//     .triggeredBy((enqueue) => gate.onChange(...))     keys from outside the caches
//     .tracksOwnWrites(pods)                            resourceVersions of our own writes
//     .recordsEvents('cloneset-controller', instance)
//     .complete((c) => ({ reconcile: (cs, ctx) => .., forget, stop }))
//
// The reconciler receives the cached primary object (kube-rs's reconcile(obj, ctx)), read through
// ./cache-read.ts: a key whose object left the cache (or that `when` turns away) forgets its kept
// state instead, and one whose cache has not shown our own writes yet (tracksOwnWrites, on the
// primary or an owned source) waits for it; no reconciler looks its object up or checks the gate.
//
// `complete` builds the reconciler from the handles the declaration asked for (expectations, own
// writes, recorder, enqueue), so nothing refers forward to the controller; it wires every handler
// in one order (own writes and expectations before the enqueues they cause), and registers the
// controller with the manager, which runs it while this replica leads and, when it stops, the
// reconciler's own `stop` (timers, connections).
import type { KubeObject } from '../client/types.ts';
import type { EventRecorder } from '../events.ts';
import { ResourceVersionExpectations, ScaleExpectations } from '../expectations.ts';
import type { Store } from '../informer/store.ts';
import type { EventSource, ResourceEventHandler } from '../informer/types.ts';
import type { Logger } from '../logger.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import type { Runnable } from '../runnable.ts';
import { WorkQueue } from '../queue/work-queue.ts';
import type { Clock } from '../util/clock.ts';
import { confirmedLeftView, ownedLeftView } from '../ring/left-view.ts';
import type { RingMembership } from '../ring/ring-labels.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';
import { done, requeueAfter, type ReconcileAction } from './action.ts';
import { OWN_WRITE_RECHECK_MS, readPrimary, type OwnedWrites, type PrimaryCache } from './cache-read.ts';
import { Controller, type ControllerOptions, type MapObjectToKeys, type ReconcileContext, type Reconciler, type UpdatePredicate } from './controller.ts';
import { controllerOwnerKey, controllerRef, keyOf, type GroupKind } from './handlers.ts';

/** What the manager lends a builder. */
export interface ControllerHost {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  /** Controller options the manager sets for every controller (deadline, staleness, clock, logger, metrics). */
  controllerDefaults(): Pick<ControllerOptions, 'reconcileTimeoutMs' | 'cacheStaleAfterMs' | 'clock' | 'logger' | 'metrics'>;
  /** A recorder the shutdown flushes. */
  eventRecorder(reportingController: string, reportingInstance: string): EventRecorder;
  /** Expectations the shutdown clears. */
  clearsAtShutdown(expectations: ScaleExpectations): void;
  add(runnable: Runnable): void;
  /** Set when the manager runs as a shard of a ControllerRing: its caches show only this shard's objects. */
  readonly ring?: RingMembership | undefined;
}

export interface ControllerBuilderOptions {
  /** Default DEFAULT_MAX_CONCURRENT_RECONCILES. */
  maxConcurrentReconciles?: number;
  /** How long an unobserved create/delete or own write holds a key (default: the expectations' 5 minutes). */
  expectationTimeoutMs?: number;
}

/** What complete() hands the reconciler's factory: the parts the declaration asked for. */
export interface ControllerHandles {
  readonly name: string;
  readonly clock: Clock;
  /** Carries the controller's name. */
  readonly logger: Logger;
  /** Creates and deletes the caches have not shown yet, per primary key (declared by owns(.., { expectations })). */
  readonly expectations: ScaleExpectations;
  /** The recorder declared with recordsEvents(). */
  readonly recorder: EventRecorder;
  /** The versions of our own writes on a source declared with tracksOwnWrites(), by object key. */
  ownWrites<T extends KubeObject>(source: KeyedSource<T>): ResourceVersionExpectations;
  readonly enqueue: (key: string) => void;
}

/** A source the builder reads objects from by key (an informer's cache). */
export type KeyedSource<T> = EventSource<T> & Pick<Store<NoInfer<T>>, 'getByKey'>;

/** One reconcile of the cached primary object; its key and namespace are in ctx. */
export type ObjectReconciler<T> = (obj: DeepReadonly<T>, ctx: ReconcileContext) => Promise<ReconcileAction>;

/** The reconciler and what goes with its state. */
export interface ReconcilerParts<T = KubeObject> {
  reconcile: ObjectReconciler<T>;
  /** The primary object left the cache (or `when` turns it away): drop what is kept for its key. */
  forget?(key: string): void;
  /** The controller stopped (shutdown, lost lease): release timers and connections. A failure is logged. */
  stop?(): void | Promise<void>;
}

type Predicate = (obj: DeepReadonly<KubeObject>) => boolean;

export interface ForOptions<T> {
  /** Objects the controller reconciles; an event of another maps to no key, and a reconcile of one forgets its key. */
  when?: (obj: DeepReadonly<T>) => boolean;
  /** An update enqueues only when this says it changes what the reconciler reads (adds, deletes and resyncs always do). */
  changed?: UpdatePredicate<T>;
  /** The primary's group and kind: whose controller reference owns() follows. */
  groupKind?: GroupKind;
}

interface Primary {
  source: KeyedSource<KubeObject>;
  when: Predicate | undefined;
  changed: UpdatePredicate<KubeObject> | undefined;
  groupKind: GroupKind | undefined;
}

interface Owned {
  source: EventSource<KubeObject>;
  expectations: ((obj: DeepReadonly<KubeObject>) => string | undefined) | undefined;
  orphans: MapObjectToKeys<KubeObject> | undefined;
  lookup: ((obj: DeepReadonly<KubeObject>) => Promise<DeepReadonly<KubeObject> | undefined>) | undefined;
}

export interface OwnsOptions<T> {
  /**
   * The name this object's create and delete are expected under (ScaleExpectations): its add meets
   * a pending create, its deletion mark or delete a pending delete.
   */
  expectations?: (obj: DeepReadonly<T>) => string | undefined;
  /** Keys for an object without a controller reference (adoption candidates). */
  orphans?: MapObjectToKeys<T>;
  /**
   * Reads the object from the API (undefined when not found). On a shard, a watch DELETE without a
   * deletion mark holds its owner (it may be a move); this read tells a deletion at once, instead of
   * after the expectation's timeout.
   */
  lookup?: (obj: DeepReadonly<T>) => Promise<DeepReadonly<T> | undefined>;
}

/** `P`: the primary resource's type, set by for(). */
export class ControllerBuilder<P extends KubeObject = KubeObject> {
  private readonly host: ControllerHost;
  private readonly name: string;
  private readonly options: ControllerBuilderOptions;
  private primary: Primary | undefined;
  private readonly owned: Owned[] = [];
  private readonly mapped: { source: EventSource<KubeObject>; map: MapObjectToKeys<KubeObject>; changed: UpdatePredicate<KubeObject> | undefined }[] = [];
  private readonly waited: EventSource<unknown>[] = [];
  private readonly triggers: ((enqueue: (key: string) => void) => (() => void) | void)[] = [];
  private readonly tracked: KeyedSource<KubeObject>[] = [];
  private readonly reactions: { source: EventSource<KubeObject>; build: (c: ControllerHandles) => ResourceEventHandler<KubeObject> }[] = [];
  private events: { reportingController: string; reportingInstance: string } | undefined;

  constructor(host: ControllerHost, name: string, options: ControllerBuilderOptions = {}) {
    this.host = host;
    this.name = name;
    this.options = options;
  }

  /** The primary resource: each object's own key, and the cached object its reconcile receives. */
  for<T extends KubeObject>(source: KeyedSource<T>, options: ForOptions<T> = {}): ControllerBuilder<T> {
    this.primary = {
      source: source as unknown as KeyedSource<KubeObject>,
      when: options.when as Predicate | undefined,
      changed: options.changed as UpdatePredicate<KubeObject> | undefined,
      groupKind: options.groupKind,
    };
    return this as unknown as ControllerBuilder<T>;
  }

  /** Objects whose controller reference is of the primary's kind: their owner's key. */
  owns<T extends KubeObject>(source: EventSource<T>, options: OwnsOptions<T> = {}): this {
    this.owned.push({
      source: source,
      expectations: options.expectations as Owned['expectations'],
      orphans: options.orphans as Owned['orphans'],
      lookup: options.lookup as Owned['lookup'],
    });
    return this;
  }

  /** Any other source, with its own mapping to keys; an update only when `changed` (if given) accepts it. */
  watches<T extends KubeObject>(source: EventSource<T>, map: MapObjectToKeys<T>, options: { changed?: UpdatePredicate<T> } = {}): this {
    this.mapped.push({ source: source, map: map as MapObjectToKeys<KubeObject>, changed: options.changed as UpdatePredicate<KubeObject> | undefined });
    return this;
  }

  /** A cache the reconciler reads whose events change nothing: synced before workers start, fresh before a reconcile. */
  waitsFor(source: EventSource<unknown>): this {
    this.waited.push(source);
    return this;
  }

  /** Keys from outside the caches (a port's decision changed, an answer arrived); may return an unsubscribe. */
  triggeredBy(subscribe: (enqueue: (key: string) => void) => (() => void) | void): this {
    this.triggers.push(subscribe);
    return this;
  }

  /**
   * Keep the versions our own writes on `source` (the primary or an owned one) returned, current
   * from its events (ControllerHandles.ownWrites); a key is reconciled only once the cache shows
   * them for its object and the owned objects it controls.
   */
  tracksOwnWrites<T extends KubeObject>(source: KeyedSource<T>): this {
    this.tracked.push(source);
    return this;
  }

  /** Handlers that act on a source's events themselves, only while this controller runs (leads): standbys run the caches too. */
  reactsTo<T extends KubeObject>(source: EventSource<T>, build: (c: ControllerHandles) => ResourceEventHandler<T>): this {
    this.reactions.push({ source: source, build: build });
    return this;
  }

  /** Events as `reportingController` from `reportingInstance`; a failed reconcile's Warning goes through it too. */
  recordsEvents(reportingController: string, reportingInstance: string): this {
    this.events = { reportingController, reportingInstance };
    return this;
  }

  /** Builds the reconciler, wires every declared handler and registers the controller with the manager. */
  complete(build: (c: ControllerHandles) => ObjectReconciler<P> | ReconcilerParts<P>): Controller {
    const primary = this.primary;
    if (!primary) throw new Error(`controller ${this.name}: for() declares its primary resource`);
    const groupKind = primary.groupKind;
    if (this.owned.length > 0 && !groupKind) throw new Error(`controller ${this.name}: owns() needs for(.., { groupKind })`);
    for (const t of this.tracked) {
      if (t !== primary.source && !this.owned.some((o) => o.source === t)) throw new Error(`controller ${this.name}: tracksOwnWrites() takes the primary or an owned source`);
    }
    const recorder = this.events ? this.host.eventRecorder(this.events.reportingController, this.events.reportingInstance) : undefined;
    const defaults = this.host.controllerDefaults();
    const queue = new WorkQueue<string>({ name: this.name, clock: this.host.clock, metrics: this.host.metrics });
    const enqueue = (key: string): void => queue.add(key);
    const expectations = this.owned.some((o) => o.expectations) ? this.newExpectations(enqueue) : undefined;
    const versions = new Map(this.tracked.map((s) => [s, new ResourceVersionExpectations({ clock: this.host.clock, timeoutMs: this.options.expectationTimeoutMs })]));
    const handles: ControllerHandles = {
      name: this.name,
      clock: this.host.clock,
      logger: this.host.logger.child({ controller: this.name }),
      get expectations(): ScaleExpectations {
        if (!expectations) throw new Error('no owns(.., { expectations }) declared');
        return expectations;
      },
      get recorder(): EventRecorder {
        if (!recorder) throw new Error('no recordsEvents() declared');
        return recorder;
      },
      ownWrites: (source) => {
        const v = versions.get(source);
        if (!v) throw new Error('no tracksOwnWrites() declared for this source');
        return v;
      },
      enqueue,
    };
    const built = build(handles);
    const parts = (typeof built === 'function' ? { reconcile: built } : built) as unknown as ReconcilerParts<KubeObject>;
    const forget = parts.forget?.bind(parts);
    const cache: PrimaryCache<KubeObject> = { store: primary.source, when: primary.when, writes: versions.get(primary.source) };
    const ownedWrites: OwnedWrites[] = [...versions].filter(([s]) => s !== primary.source).map(([s, writes]) => ({ store: s, writes, owner: groupKind! }));
    const reconcile: Reconciler = (key, ctx) => {
      const read = readPrimary(key, cache, ownedWrites);
      switch (read.kind) {
        case 'gone':
          forget?.(key);
          return Promise.resolve(done());
        case 'behindOwnWrites':
          ctx.logger.debug({ behind: read.keys }, 'waiting for the cache to observe our own writes');
          return Promise.resolve(requeueAfter(OWN_WRITE_RECHECK_MS));
        case 'current':
          return parts.reconcile(read.obj, ctx);
      }
    };
    const controller = new Controller({ ...defaults, name: this.name, maxConcurrentReconciles: this.options.maxConcurrentReconciles, recorder, queue, reconcile });

    // Bookkeeping first: an event meets the versions and expectations before the enqueue it causes.
    for (const [source, v] of versions) source.addEventHandler(trackVersions(v));
    const sharded = this.host.ring !== undefined;
    for (const o of this.owned) {
      if (!o.expectations || !expectations || !groupKind) continue;
      const held = sharded ? { lookup: o.lookup, enqueue, logger: handles.logger } : undefined;
      o.source.addEventHandler(observeExpectations(expectations, groupKind, o.expectations, held));
    }
    for (const r of this.reactions) r.source.addEventHandler(whileRunning(controller, r.build(handles)));
    primary.source.addEventHandler({
      onDelete: (obj) => {
        expectations?.delete(keyOf(obj));
        forget?.(keyOf(obj));
      },
    });
    const when = primary.when;
    controller.watches(primary.source, (obj) => (when && !when(obj) ? undefined : keyOf(obj)), primary.changed);
    for (const o of this.owned) controller.watches(o.source, ownerKeys(groupKind!, o.orphans));
    for (const m of this.mapped) controller.watches(m.source, m.map, m.changed);
    for (const s of this.waited) controller.waitsFor(s);
    const unsubscribes = this.triggers.map((subscribe) => subscribe(enqueue));
    this.host.add({
      name: this.name,
      needLeaderElection: true,
      start: async (signal) => {
        try {
          await controller.start(signal);
        } finally {
          for (const u of unsubscribes) u?.();
          await this.stopParts(parts);
        }
      },
    });
    return controller;
  }

  private newExpectations(enqueue: (key: string) => void): ScaleExpectations {
    const e = new ScaleExpectations({ controller: this.name, clock: this.host.clock, metrics: this.host.metrics, onExpired: enqueue, timeoutMs: this.options.expectationTimeoutMs });
    this.host.clearsAtShutdown(e);
    return e;
  }

  private async stopParts(parts: ReconcilerParts<KubeObject>): Promise<void> {
    try {
      await parts.stop?.();
    } catch (err) {
      this.host.logger.warn({ controller: this.name, err }, 'releasing the reconciler at stop failed');
    }
  }
}

/** Own-write versions kept current: every version the cache shows meets ours; a gone object forgets it. */
function trackVersions(versions: ResourceVersionExpectations): ResourceEventHandler<KubeObject> {
  return {
    onAdd: (obj) => versions.observe(keyOf(obj), obj.metadata?.resourceVersion),
    onUpdate: (_old, obj) => versions.observe(keyOf(obj), obj.metadata?.resourceVersion),
    onDelete: (obj) => versions.delete(keyOf(obj)),
  };
}

/** On a shard: how a held owner learns that what left its view was deleted after all. */
interface HeldOwners {
  lookup: Owned['lookup'];
  enqueue: (key: string) => void;
  logger: Logger;
}

/**
 * An owned object's add meets its create; its deletion mark or its delete meets its delete. On a
 * shard (`held`), a delete may be a move instead (ring/left-view.ts): the owner then waits to see
 * the object again, or to leave this shard itself, rather than replace what it no longer sees;
 * the object read from the API ends the wait at once when it is gone after all.
 */
function observeExpectations(
  expectations: ScaleExpectations,
  owner: GroupKind,
  nameOf: (obj: DeepReadonly<KubeObject>) => string | undefined,
  held: HeldOwners | undefined,
): ResourceEventHandler<KubeObject> {
  const confirm = (obj: DeepReadonly<KubeObject>, key: string, name: string): void => {
    if (!held?.lookup) return;
    held.lookup(obj).then(
      (current) => {
        if (confirmedLeftView(obj, current) === 'hold-owner') return;
        expectations.observe(key, 'create', name);
        held.enqueue(key);
      },
      // The hold's timeout still ends the wait.
      (err: unknown) => held.logger.debug({ owner: key, name, err }, 'reading an object that left the shard\'s view failed; its owner waits for the expectation to expire'),
    );
  };
  const observe = (obj: DeepReadonly<KubeObject>, action: 'create' | 'delete'): void => {
    const key = controllerOwnerKey(obj, owner);
    const name = nameOf(obj);
    if (key && name) expectations.observe(key, action, name);
  };
  return {
    onAdd: (obj) => observe(obj, 'create'),
    onUpdate: (_old, obj) => {
      if (obj.metadata?.deletionTimestamp) observe(obj, 'delete');
    },
    onDelete: (obj) => {
      const key = controllerOwnerKey(obj, owner);
      const name = nameOf(obj);
      if (!key || !name) return;
      if (ownedLeftView(obj, { sharded: held !== undefined, deletePending: expectations.pending(key).delete.includes(name) }) === 'hold-owner') {
        expectations.expect(key, 'create', name);
        confirm(obj, key, name);
      } else {
        expectations.observe(key, 'delete', name);
      }
    },
  };
}

function whileRunning(controller: Controller, handler: ResourceEventHandler<KubeObject>): ResourceEventHandler<KubeObject> {
  return {
    onAdd: (obj, initial) => {
      if (controller.running) handler.onAdd?.(obj, initial);
    },
    onUpdate: (old, obj) => {
      if (controller.running) handler.onUpdate?.(old, obj);
    },
    onDelete: (obj, unknown) => {
      if (controller.running) handler.onDelete?.(obj, unknown);
    },
  };
}

/** The owner's key for an object with a controller reference; `orphans` for one without. */
function ownerKeys(owner: GroupKind, orphans: MapObjectToKeys<KubeObject> | undefined): MapObjectToKeys<KubeObject> {
  return (obj) => (controllerRef(obj) || !orphans ? controllerOwnerKey(obj, owner) : orphans(obj));
}
