// Expectations remember writes the cache has not shown yet, so a fast second reconcile does not
// create (or delete) the same pod twice. Unlike kruise (#1765) an unmet expectation cannot wedge an
// owner: after `timeoutMs` it is dropped, counted, and the owner is requeued.
import type { RuntimeMetrics } from './metrics.ts';
import { realClock, type Clock, type TimerHandle } from './util/clock.ts';

/** How long an expectation waits for the cache to show its effect (controller-runtime's 5 minutes). */
export const EXPECTATION_TIMEOUT_MS = 5 * 60_000;

export type ExpectationAction = 'create' | 'delete';

export interface ExpectationsOptions {
  /** Label of the expired-expectations counter. */
  controller: string;
  timeoutMs?: number;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Called with the owner key when its expectations expire; wire it to the controller's queue. */
  onExpired?: (ownerKey: string) => void;
}

interface OwnerExpectations {
  readonly create: Set<string>;
  readonly delete: Set<string>;
  /** When the oldest still-pending expectation was set. */
  since: number;
  timer: TimerHandle | undefined;
}

/** Per-owner pending creates/deletes, by object name. */
export class ScaleExpectations {
  private readonly owners = new Map<string, OwnerExpectations>();
  private readonly controller: string;
  private readonly timeoutMs: number;
  private readonly clock: Clock;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly onExpired: ((ownerKey: string) => void) | undefined;

  constructor(options: ExpectationsOptions) {
    this.controller = options.controller;
    this.timeoutMs = options.timeoutMs ?? EXPECTATION_TIMEOUT_MS;
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics;
    this.onExpired = options.onExpired;
  }

  /** Records that the controller is about to create/delete `name` for the owner. */
  expect(ownerKey: string, action: ExpectationAction, name: string): void {
    let e = this.owners.get(ownerKey);
    if (!e) {
      e = { create: new Set(), delete: new Set(), since: this.clock.now(), timer: undefined };
      this.owners.set(ownerKey, e);
    }
    if (e.create.size === 0 && e.delete.size === 0) e.since = this.clock.now();
    e[action].add(name);
    if (!e.timer) this.armTimer(ownerKey, e);
  }

  /** The cache saw the create/delete (or the write failed and will not happen). */
  observe(ownerKey: string, action: ExpectationAction, name: string): void {
    const e = this.owners.get(ownerKey);
    if (!e) return;
    e[action].delete(name);
    if (e.create.size === 0 && e.delete.size === 0) this.drop(ownerKey, e);
  }

  /**
   * True when nothing is pending for the owner. Pending expectations older than the timeout
   * are dropped here too (and counted), so the caller may proceed.
   */
  satisfied(ownerKey: string): boolean {
    const e = this.owners.get(ownerKey);
    if (!e) return true;
    if (this.clock.now() - e.since >= this.timeoutMs) {
      this.expire(ownerKey, e);
      return true;
    }
    return false;
  }

  /** Names still pending, for logs and status. */
  pending(ownerKey: string): { create: string[]; delete: string[] } {
    const e = this.owners.get(ownerKey);
    return { create: e ? [...e.create] : [], delete: e ? [...e.delete] : [] };
  }

  /** Forget the owner entirely (e.g. it was deleted). */
  delete(ownerKey: string): void {
    const e = this.owners.get(ownerKey);
    if (e) this.drop(ownerKey, e);
  }

  /** Cancels timers; call on shutdown. */
  clear(): void {
    for (const [k, e] of [...this.owners]) this.drop(k, e);
  }

  private armTimer(ownerKey: string, e: OwnerExpectations): void {
    const delay = Math.max(0, e.since + this.timeoutMs - this.clock.now());
    e.timer = this.clock.setTimer(() => {
      e.timer = undefined;
      if (this.owners.get(ownerKey) !== e) return;
      if (this.clock.now() - e.since >= this.timeoutMs) this.expire(ownerKey, e);
      else this.armTimer(ownerKey, e);
    }, delay);
  }

  private expire(ownerKey: string, e: OwnerExpectations): void {
    this.drop(ownerKey, e);
    this.metrics?.expectationsExpired.inc({ controller: this.controller });
    this.onExpired?.(ownerKey);
  }

  private drop(ownerKey: string, e: OwnerExpectations): void {
    e.timer?.cancel();
    e.timer = undefined;
    this.owners.delete(ownerKey);
  }
}

/**
 * resourceVersion expectations for the controller's own writes: after patching an object, wait
 * until the cache holds that version (or newer) before trusting it.
 */
export class ResourceVersionExpectations {
  private readonly expected = new Map<string, { rv: string; since: number }>();
  private readonly timeoutMs: number;
  private readonly clock: Clock;

  constructor(options: { timeoutMs?: number; clock?: Clock } = {}) {
    this.timeoutMs = options.timeoutMs ?? EXPECTATION_TIMEOUT_MS;
    this.clock = options.clock ?? realClock;
  }

  /** The write for `key` returned an object with resourceVersion `rv`. */
  expect(key: string, rv: string | undefined): void {
    if (!rv) return;
    const prev = this.expected.get(key);
    if (prev && compareResourceVersions(prev.rv, rv) >= 0) return;
    this.expected.set(key, { rv, since: this.clock.now() });
  }

  /** The cache now holds `rv` for `key`; clears the expectation once it is reached. */
  observe(key: string, rv: string | undefined): void {
    const e = this.expected.get(key);
    if (e && rv && compareResourceVersions(rv, e.rv) >= 0) this.expected.delete(key);
  }

  /** True when the cache version `currentRV` is at least the expected one, or it timed out. */
  satisfied(key: string, currentRV?: string): boolean {
    const e = this.expected.get(key);
    if (!e) return true;
    if (currentRV && compareResourceVersions(currentRV, e.rv) >= 0) {
      this.expected.delete(key);
      return true;
    }
    if (this.clock.now() - e.since >= this.timeoutMs) {
      this.expected.delete(key);
      return true;
    }
    return false;
  }

  delete(key: string): void {
    this.expected.delete(key);
  }

  /** The keys with a write the cache has not been seen to reach (a snapshot: satisfied() may clear them meanwhile). */
  pendingKeys(): string[] {
    return [...this.expected.keys()];
  }
}

/**
 * resourceVersions are opaque, but every apiserver backed by etcd renders them as decimal
 * revisions, and kruise compares them numerically too. Non-numeric versions compare as
 * equal-or-unknown (0 when identical, -1 otherwise) so callers fall back to the timeout.
 */
export function compareResourceVersions(a: string, b: string): number {
  if (a === b) return 0;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return -1;
}
