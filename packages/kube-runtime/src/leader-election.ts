// Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules:
//  - a candidate takes the lease only when the holder has not renewed it for leaseDuration, timed
//    by the local clock from when this candidate last saw the record change (no clock-skew trust);
//  - writes are PUTs carrying the read resourceVersion, so two candidates cannot both win;
//  - the leader renews every retryPeriod and gives up when it has not renewed for renewDeadline,
//    which is shorter than leaseDuration: it stops acting before anyone else may start.
import type { KubeClient } from './client/client.ts';
import { isConflict, isAlreadyExists, isNotFound } from './client/errors.ts';
import { Resources } from './client/gvr.ts';
import type { ResourceClient } from './client/resource-client.ts';
import type { KubeObject } from './client/types.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { realClock, sleep, type Clock, type TimerHandle } from './util/clock.ts';
import { microTime } from './util/micro-time.ts';

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  /** Lease name; also the `name` label of leader_election_master_status. */
  name: string;
  /** Unique per process, e.g. hostname + random suffix. */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Clear the holder on a clean shutdown so a successor need not wait out the lease. */
  releaseOnCancel?: boolean;
  /** Labels the Lease carries (a shard's Lease names its ring); set on create and on acquiring. */
  labels?: Readonly<Record<string, string>>;
  /**
   * Called on becoming leader. `signal` aborts the moment leadership is lost or given up; `term`
   * is the lease's transition count at acquisition, usable as a fencing token.
   */
  onStartedLeading: (signal: AbortSignal, term: number) => void | Promise<void>;
  onStoppedLeading?: () => void;
  onNewLeader?: (identity: string) => void;
  clock?: Clock;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  random?: () => number;
}

const JITTER_FACTOR = 1.2;

export class LeaderElector {
  private readonly o: Required<Pick<LeaderElectionOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnCancel'>> &
    LeaderElectionOptions;
  private readonly leases: ResourceClient<Lease>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly random: () => number;
  /** The last record seen, and when (local clock) it last changed. */
  private observed: Lease | undefined;
  private observedAt = 0;
  private reportedLeader: string | undefined;
  private leading = false;

  constructor(options: LeaderElectionOptions) {
    this.o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      releaseOnCancel: true,
      ...options,
    };
    if (this.o.leaseDurationMs <= this.o.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
    if (this.o.renewDeadlineMs <= JITTER_FACTOR * this.o.retryPeriodMs) {
      throw new Error('renewDeadline must be greater than retryPeriod * 1.2');
    }
    this.leases = options.client.resource<Lease>(Resources.leases);
    this.clock = options.clock ?? realClock;
    this.logger = (options.logger ?? silentLogger()).child({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.random = options.random ?? Math.random;
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Identity of the holder last seen (maybe stale). */
  leaderIdentity(): string | undefined {
    return this.observed?.spec?.holderIdentity || undefined;
  }

  /**
   * Campaigns until leader, leads until the lease is lost or the signal aborts, then resolves.
   * Like client-go, one run is one term: after losing, the caller decides (usually: exit).
   */
  async run(signal: AbortSignal): Promise<void> {
    this.setMasterStatus(0);
    const acquired = await this.acquire(signal);
    if (!acquired) return;
    const { term, at } = acquired;
    const leadership = new AbortController();
    this.leading = true;
    this.setMasterStatus(1);
    this.logger.info({ term }, 'became leader');
    // Measured from before the write was sent: errs on the side of stopping early.
    let lastRenew = at;
    // Hard stop at lastRenew + renewDeadline even if a renew request hangs.
    let deadline: TimerHandle | undefined;
    const armDeadline = (): void => {
      deadline?.cancel();
      deadline = this.clock.setTimer(
        () => leadership.abort(new Error('failed to renew the lease within renewDeadline')),
        lastRenew + this.o.renewDeadlineMs - this.clock.now(),
      );
    };
    armDeadline();
    const onCancel = (): void => leadership.abort(new Error('leader election stopped'));
    signal.addEventListener('abort', onCancel, { once: true });
    const callback = Promise.resolve()
      .then(() => this.o.onStartedLeading(leadership.signal, term))
      .catch((err: unknown) => this.logger.error({ err }, 'onStartedLeading failed'));
    try {
      while (!leadership.signal.aborted) {
        await sleep(this.clock, this.o.retryPeriodMs, leadership.signal).catch(() => undefined);
        if (leadership.signal.aborted) break;
        const attemptStart = this.clock.now();
        const ok = await this.tryAcquireOrRenew(leadership.signal).catch((err: unknown) => {
          this.logger.warn({ err }, 'renewing the lease failed');
          return false;
        });
        if (ok) {
          lastRenew = attemptStart;
          armDeadline();
        } else if (this.observed?.spec?.holderIdentity && this.observed.spec.holderIdentity !== this.o.identity) {
          leadership.abort(new Error(`lease taken by ${this.observed.spec.holderIdentity}`));
        }
      }
    } finally {
      deadline?.cancel();
      signal.removeEventListener('abort', onCancel);
      this.leading = false;
      this.setMasterStatus(0);
      const reason: unknown = leadership.signal.reason;
      this.logger.info({ reason: reason instanceof Error ? reason.message : String(reason) }, 'stopped leading');
      this.o.onStoppedLeading?.();
      if (signal.aborted && this.o.releaseOnCancel) await this.release();
      await callback;
    }
  }

  /** Tries every retryPeriod (jittered) until the lease is ours; undefined when aborted. */
  private async acquire(signal: AbortSignal): Promise<{ term: number; at: number } | undefined> {
    while (!signal.aborted) {
      const at = this.clock.now();
      const ok = await this.tryAcquireOrRenew(signal).catch((err: unknown) => {
        if (!signal.aborted) this.logger.warn({ err }, 'acquiring the lease failed');
        return false;
      });
      if (ok) return { term: this.observed?.spec?.leaseTransitions ?? 0, at };
      const delay = this.o.retryPeriodMs * (1 + (JITTER_FACTOR - 1) * this.random());
      await sleep(this.clock, delay, signal).catch(() => undefined);
    }
    return undefined;
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const record = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    // The leader's fast path (as client-go's): one PUT on the version it last saw. A loaded
    // apiserver then costs one round trip per renewal, not two; a conflict falls back to reading.
    const held = this.observed;
    if (this.leading && held?.metadata?.resourceVersion && held.spec?.holderIdentity === this.o.identity) {
      try {
        this.observe(await this.leases.replace({ ...held, spec: { ...held.spec, renewTime: record.renewTime, leaseDurationSeconds: record.leaseDurationSeconds } }, { signal }));
        return true;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
    let current: Lease;
    try {
      current = await this.leases.get(this.o.namespace, this.o.name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        const created = await this.leases.create({ metadata: { name: this.o.name, namespace: this.o.namespace, ...(this.o.labels ? { labels: { ...this.o.labels } } : {}) }, spec: record }, { signal });
        this.observe(created);
        return true;
      } catch (createErr) {
        if (isAlreadyExists(createErr)) return false;
        throw createErr;
      }
    }
    this.observe(current);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const iHold = holder === this.o.identity;
    const durationMs = (spec.leaseDurationSeconds ?? Math.ceil(this.o.leaseDurationMs / 1000)) * 1000;
    if (holder && !iHold && this.observedAt + durationMs > this.clock.now()) return false;
    const next: Lease = {
      ...current,
      metadata: this.withLabels(current.metadata),
      spec: {
        ...record,
        acquireTime: iHold && spec.acquireTime ? spec.acquireTime : record.acquireTime,
        leaseTransitions: iHold ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
    try {
      const updated = await this.leases.replace(next, { signal });
      this.observe(updated);
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  /** The Lease's metadata with our labels added (a Lease created by someone else may lack them). */
  private withLabels(metadata: Lease['metadata']): Lease['metadata'] {
    if (!this.o.labels) return metadata;
    return { ...metadata, labels: { ...metadata?.labels, ...this.o.labels } };
  }

  /**
   * Remembers the record; the expiry clock restarts (at the time of the answer, so a follower
   * never counts from before the holder's write) only when the record actually changed.
   */
  private observe(lease: Lease): void {
    const at = this.clock.now();
    const prev = this.observed;
    const changed =
      !prev ||
      prev.spec?.holderIdentity !== lease.spec?.holderIdentity ||
      prev.spec?.renewTime !== lease.spec?.renewTime ||
      prev.metadata?.resourceVersion !== lease.metadata?.resourceVersion;
    this.observed = lease;
    if (changed) this.observedAt = at;
    const holder = lease.spec?.holderIdentity;
    if (holder && holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.logger.info({ leader: holder }, 'new leader observed');
      this.o.onNewLeader?.(holder);
    }
  }

  /** Gives the lease up if we still hold it, so a successor can take over at once. */
  private async release(): Promise<void> {
    let lease = this.observed;
    // A renew cut short by the shutdown may still have landed, leaving `observed` one version
    // behind: on a conflict, re-read once and release if the lease is still ours.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!lease || lease.spec?.holderIdentity !== this.o.identity) return;
      const now = microTime(this.clock.now());
      try {
        await this.leases.replace({
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
        });
        this.logger.info('released the lease');
        return;
      } catch (err) {
        if (attempt === 0 && isConflict(err)) {
          lease = await this.leases.get(this.o.namespace, this.o.name).catch(() => undefined);
          continue;
        }
        this.logger.warn({ err }, 'releasing the lease failed');
        return;
      }
    }
  }

  private setMasterStatus(v: 0 | 1): void {
    this.o.metrics?.leaderElectionMasterStatus.set({ name: this.o.name }, v);
  }
}
