// An events.k8s.io/v1 recorder with client-side aggregation: the first occurrence of an event
// creates an Event; repeats within the aggregation window only bump a local counter, flushed as
// one `series` patch per flush interval. A reconcile loop retrying every few ms therefore writes
// once per interval, not once per retry. Similar events with different notes (one per created pod)
// are folded into one combined Event past a threshold, as client-go does (./event-folding.ts).
// Recording never throws and never blocks the caller, and
// the queue of writes is bounded: while the apiserver is slow, what does not fit is dropped.
import { randomBytes } from 'node:crypto';
import type { KubeClient } from './client/client.ts';
import { isNotFound } from './client/errors.ts';
import { FOLD_AT_DISTINCT_NOTES, FOLD_WINDOW_MS, foldSimilar, type SimilarEvents } from './event-folding.ts';
import { Resources } from './client/gvr.ts';
import { mergePatch } from './client/patch.ts';
import type { ResourceClient } from './client/resource-client.ts';
import type { KubeObject } from './client/types.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { realClock, type Clock, type TimerHandle } from './util/clock.ts';
import type { DeepReadonly } from './util/deep-readonly.ts';
import { microTime } from './util/micro-time.ts';

export type EventType = 'Normal' | 'Warning';

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface EventsV1Event extends KubeObject {
  eventTime?: string;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  note?: string;
  type?: EventType;
  regarding?: ObjectReference;
  related?: ObjectReference;
  series?: { count: number; lastObservedTime: string };
}

export interface EventRecorderOptions {
  client: KubeClient;
  /** e.g. apps.kruise.io/cloneset-controller */
  reportingController: string;
  /** e.g. the pod name of this replica */
  reportingInstance: string;
  /** Repeats within this window join the existing Event (default 10 min). */
  aggregationWindowMs?: number;
  /** How often accumulated repeats are written as a series update (default 30 s). */
  flushIntervalMs?: number;
  /** Cap on distinct events tracked; the oldest are forgotten beyond it. */
  maxTracked?: number;
  /** Distinct notes of similar events (same object, type, reason, action) from which they are folded (default 10, as client-go). */
  foldAtDistinctNotes?: number;
  /** Similar events start over after this long without one (default 10 min, as client-go). */
  foldWindowMs?: number;
  /** Cap on writes waiting for the apiserver (default DEFAULT_MAX_QUEUED_EVENT_WRITES); beyond it events are dropped. */
  maxQueuedWrites?: number;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

interface Tracked {
  namespace: string;
  name: string | undefined; // set once the create succeeded
  count: number;
  flushedCount: number;
  firstSeen: number;
  lastSeen: number;
  creating: boolean;
}

const NOTE_MAX = 1024;

/** As client-go's event broadcaster, which drops beyond a queue of 1000. */
export const DEFAULT_MAX_QUEUED_EVENT_WRITES = 1000;
/** How often accumulated repeats (and folded similar Events) are written as a series update. */
export const DEFAULT_EVENT_SERIES_FLUSH_MS = 30_000;

export class EventRecorder {
  private readonly o: EventRecorderOptions;
  private readonly events: ResourceClient<EventsV1Event>;
  private readonly tracked = new Map<string, Tracked>();
  private readonly similar = new Map<string, SimilarEvents>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly windowMs: number;
  private readonly flushMs: number;
  private readonly maxTracked: number;
  private flushTimer: TimerHandle | undefined;
  private pending: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly maxQueued: number;
  private stopped = false;

  constructor(options: EventRecorderOptions) {
    this.o = options;
    this.events = options.client.resource<EventsV1Event>(Resources.events);
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger()).child({ component: 'event-recorder' });
    this.windowMs = options.aggregationWindowMs ?? 10 * 60_000;
    this.flushMs = options.flushIntervalMs ?? DEFAULT_EVENT_SERIES_FLUSH_MS;
    this.maxTracked = options.maxTracked ?? 4096;
    this.maxQueued = Math.max(1, options.maxQueuedWrites ?? DEFAULT_MAX_QUEUED_EVENT_WRITES);
  }

  /** Writes waiting for (or in flight to) the apiserver. */
  queuedWrites(): number {
    return this.queued;
  }

  /** Records an event about `regarding`. Fire and forget. */
  event(
    regarding: DeepReadonly<KubeObject> | KubeObject,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    related?: DeepReadonly<KubeObject> | KubeObject,
  ): void {
    if (this.stopped) return;
    const ref = referenceOf(regarding);
    const namespace = ref.namespace || 'default';
    const now = this.clock.now();
    const groupKey = [ref.kind, namespace, ref.name, ref.uid, type, reason, action].join('\u0000');
    const folding = foldSimilar(this.similar.get(groupKey), note, now, {
      distinctNotes: this.o.foldAtDistinctNotes ?? FOLD_AT_DISTINCT_NOTES,
      windowMs: this.o.foldWindowMs ?? FOLD_WINDOW_MS,
    });
    this.rememberSimilar(groupKey, folding.similar);
    // A folded event is tracked under its group, so every one of them counts into the same Event.
    const key = folding.fold ? `${groupKey}\u0000(combined)` : `${groupKey}\u0000${note}`;
    const shownNote = folding.fold ? folding.note : note;
    const t = this.tracked.get(key);
    if (t && now - t.lastSeen < this.windowMs) {
      t.count++;
      t.lastSeen = now;
      this.o.metrics?.eventsAggregated.inc({ reason });
      this.scheduleFlush();
      return;
    }
    if (this.queued >= this.maxQueued) {
      // Not tracked either: the next occurrence, once writes drain, creates the Event.
      this.o.metrics?.eventsDropped.inc({ reason });
      return;
    }
    this.evictIfFull();
    const entry: Tracked = { namespace, name: undefined, count: 1, flushedCount: 1, firstSeen: now, lastSeen: now, creating: true };
    this.tracked.set(key, entry);
    const body: EventsV1Event = {
      metadata: { name: `${ref.name ?? 'event'}.${randomBytes(8).toString('hex')}`, namespace },
      eventTime: microTime(now),
      reportingController: this.o.reportingController,
      reportingInstance: this.o.reportingInstance,
      action,
      reason,
      note: shownNote.length > NOTE_MAX ? `${shownNote.slice(0, NOTE_MAX - 3)}...` : shownNote,
      type,
      regarding: ref,
      // A combined Event stands for many related objects, so it names none.
      ...(related && !folding.fold ? { related: referenceOf(related) } : {}),
    };
    this.enqueue(async () => {
      try {
        const created = await this.events.create(body);
        entry.name = created.metadata?.name;
      } catch (err) {
        this.logger.warn({ err, reason, regarding: `${namespace}/${ref.name}` }, 'writing an event failed');
        this.tracked.delete(key);
      } finally {
        entry.creating = false;
      }
    });
  }

  /** Writes accumulated repeats now. */
  async flush(): Promise<void> {
    this.flushTimer?.cancel();
    this.flushTimer = undefined;
    for (const [key, t] of this.tracked) {
      if (t.count === t.flushedCount || !t.name || t.creating) continue;
      if (this.queued >= this.maxQueued) break; // the counts stay; a later flush writes them
      const count = t.count;
      const name = t.name;
      this.enqueue(async () => {
        try {
          await this.events.patch(t.namespace, name, mergePatch({ series: { count, lastObservedTime: microTime(t.lastSeen) } }));
          t.flushedCount = count;
        } catch (err) {
          // The Event expired (TTL) or was deleted: start a fresh one on the next occurrence.
          if (isNotFound(err)) this.tracked.delete(key);
          else this.logger.warn({ err, event: `${t.namespace}/${name}` }, 'updating an event series failed');
        }
      });
    }
    await this.pending;
  }

  /** Flushes and stops recording; for graceful shutdown. */
  async stop(): Promise<void> {
    await this.flush();
    this.stopped = true;
    this.flushTimer?.cancel();
  }

  private scheduleFlush(): void {
    if (this.flushTimer || this.stopped) return;
    this.flushTimer = this.clock.setTimer(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.flushMs);
  }

  // Writes go one at a time: events are best-effort and must not compete with reconcile writes.
  private enqueue(write: () => Promise<void>): void {
    this.queued++;
    const run = (): Promise<void> => write().finally(() => this.queued--);
    this.pending = this.pending.then(run, run);
  }

  private rememberSimilar(groupKey: string, similar: SimilarEvents): void {
    this.similar.delete(groupKey); // re-inserted last: the map's order is least recently seen first
    this.similar.set(groupKey, similar);
    if (this.similar.size > this.maxTracked) this.similar.delete(this.similar.keys().next().value!);
  }

  private evictIfFull(): void {
    if (this.tracked.size < this.maxTracked) return;
    const oldest = this.tracked.keys().next();
    if (!oldest.done) this.tracked.delete(oldest.value);
  }
}

export function referenceOf(obj: DeepReadonly<KubeObject> | KubeObject): ObjectReference {
  const m = obj.metadata;
  return {
    ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
    ...(obj.kind ? { kind: obj.kind } : {}),
    ...(m?.namespace ? { namespace: m.namespace } : {}),
    ...(m?.name ? { name: m.name } : {}),
    ...(m?.uid ? { uid: m.uid } : {}),
    ...(m?.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}
