// The manager owns what controllers share (one client and rate limit, one informer factory, one
// metrics registry, one logger) and the one lifecycle every entry point uses:
//  - start: informers at once (a standby keeps a warm cache), every-replica runnables at once,
//    leader election (on its own client), leader runnables once leading and the caches synced;
//  - stop (signal, stop(), lost lease, a failed runnable): unready, drain the leader runnables
//    bounded by the graceful-shutdown timeout, flush Events, clear expectations, release the
//    lease, stop the every-replica runnables, stop the informers; the result says why it stopped.
import type { Registry } from 'prom-client';
import { KubeClient, type KubeClientOptions } from './client/client.ts';
import { ControllerBuilder, type ControllerBuilderOptions, type ControllerHost } from './controller/builder.ts';
import type { ControllerOptions } from './controller/controller.ts';
import { EventRecorder } from './events.ts';
import type { ScaleExpectations } from './expectations.ts';
import { InformerFactory, type ShardScope } from './informer/factory.ts';
import { DEFAULT_CACHE_STALE_AFTER_MS, recordCacheSilence, staleCaches, type StaleCache } from './informer/staleness.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { silentLogger, type Logger } from './logger.ts';
import { shardSelector, type RingMembership } from './ring/ring-labels.ts';
import { createMetrics, type RuntimeMetrics } from './metrics.ts';
import { whenAborted, type Runnable } from './runnable.ts';
import { realClock, type Clock } from './util/clock.ts';
import { within } from './util/within.ts';

/** The Lease and its timings, as the elector takes them; the manager supplies the rest. */
export type LeaderElectionConfig = Pick<
  LeaderElectionOptions,
  'namespace' | 'name' | 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'releaseOnCancel' | 'labels'
> & {
  /** The elector's own client limit (client-go's defaults): reconcile bursts never delay a renewal. */
  qps?: number;
  burst?: number;
};

/**
 * The shared client's options (KubeClientOptions: kubeConfig or transport, the qps/burst rate
 * limit, the answer timeout, the user agent), and what the manager adds. Its clock is also the
 * clock of every controller, informer and recorder it makes.
 */
export interface ManagerOptions extends Pick<KubeClientOptions, 'kubeConfig' | 'transport' | 'qps' | 'burst' | 'requestTimeoutMs' | 'userAgent' | 'clock'> {
  /** The registry /metrics serves; a fresh one per manager by default. */
  registry?: Registry;
  logger?: Logger;
  defaultResyncMs?: number;
  /** A cache silent this long is stale: readiness fails and controllers do not act (default 2 min). */
  cacheStaleAfterMs?: number;
  /** Deadline of one reconcile for controllers that set none (default: the Controller's). */
  reconcileTimeoutMs?: number;
  /** How long in-flight leader work (reconciles) may take to finish at shutdown (default 30 s). */
  gracefulShutdownTimeoutMs?: number;
  leaderElection?: LeaderElectionConfig;
  /**
   * A shard of a ControllerRing: the ring resources' caches hold this shard's objects only
   * (ring/ring-labels.ts), and controllers treat an owned object leaving that view as a move.
   * The shard's own Lease is `leaderElection` (ring/shard-lease.ts builds it).
   */
  shard?: { membership: RingMembership; resources: ShardScope['resources'] };
}

/** The elector's own client limit when the config sets none (client-go's defaults). */
export const LEADER_ELECTION_CLIENT_LIMITS = { qps: 5, burst: 10 } as const;

/** signal: asked to stop (exit 0). lost-leadership / failed: exit non-zero so a fresh process starts. */
export type StopReason = 'signal' | 'lost-leadership' | 'failed';

/** Later shutdown steps get what is left of the timeout, but never less than this. */
const STEP_FLOOR_MS = 1_000;
const LEASE_RELEASE_MAX_MS = 5_000;
const INFORMERS_STOP_MS = 2_000;
/** How often the cache-silence gauge is brought up to date between scrapes. */
const SILENCE_GAUGE_REFRESH_MS = 5_000;

export class Manager implements ControllerHost {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  private readonly options: ManagerOptions;
  private readonly runnables: Runnable[] = [];
  private readonly recorders: EventRecorder[] = [];
  private readonly expectations: ScaleExpectations[] = [];
  private readonly stopRequested = new AbortController();
  private stopReason: StopReason = 'signal';
  private started = false;
  private synced = false;
  private shuttingDown = false;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger();
    this.metrics = createMetrics(options.registry);
    this.client = this.newClient({ qps: options.qps, burst: options.burst, requestTimeoutMs: options.requestTimeoutMs });
    this.informers = new InformerFactory({
      client: this.client,
      clock: this.clock,
      logger: this.logger,
      metrics: this.metrics,
      defaultResyncMs: options.defaultResyncMs,
      ...(options.shard ? { shardScope: { labelSelector: shardSelector(options.shard.membership), resources: options.shard.resources } } : {}),
    });
  }

  /** This manager's ring and shard when it runs as a shard of a ControllerRing. */
  get ring(): RingMembership | undefined {
    return this.options.shard?.membership;
  }

  /** Adds a component to run from start(); see Runnable.needLeaderElection. */
  add(runnable: Runnable): void {
    if (this.started) throw new Error(`cannot add ${runnable.name}: the manager has started`);
    this.runnables.push(runnable);
  }

  /** Declares a controller (ControllerBuilder); complete() registers it to run while this replica leads. */
  controller(name: string, options: ControllerBuilderOptions = {}): ControllerBuilder {
    if (this.started) throw new Error(`cannot add controller ${name}: the manager has started`);
    return new ControllerBuilder(this, name, options);
  }

  /** What every controller of this manager shares: its deadline, staleness threshold, clock, logger and metrics. */
  controllerDefaults(): Pick<ControllerOptions, 'reconcileTimeoutMs' | 'cacheStaleAfterMs' | 'clock' | 'logger' | 'metrics'> {
    return { reconcileTimeoutMs: this.options.reconcileTimeoutMs, cacheStaleAfterMs: this.cacheStaleAfterMs(), clock: this.clock, logger: this.logger, metrics: this.metrics };
  }

  /**
   * A client with a rate limit of its own (the same cluster, transport settings and metrics), for
   * a controller whose writes a tenant can drive: its bursts then wait on its own bucket, never on
   * the shared client's that the other controllers need.
   */
  clientWithLimits(limits: { qps: number; burst: number; userAgentSuffix: string }): KubeClient {
    return this.newClient({ ...limits, requestTimeoutMs: this.options.requestTimeoutMs });
  }

  /** A recorder the shutdown flushes, so buffered repeats reach the API before exit. */
  eventRecorder(reportingController: string, reportingInstance: string): EventRecorder {
    const r = new EventRecorder({
      client: this.client,
      reportingController,
      reportingInstance,
      clock: this.clock,
      logger: this.logger,
      metrics: this.metrics,
    });
    this.recorders.push(r);
    return r;
  }

  /** Expectations of this term, cleared at shutdown. */
  clearsAtShutdown(expectations: ScaleExpectations): void {
    this.expectations.push(expectations);
  }

  /** Whether every informer created before start() has synced (a readiness check). */
  hasSynced(): boolean {
    return this.synced;
  }

  /** The caches silent past the staleness threshold (a readiness check); updates the silence gauge. */
  staleCaches(): StaleCache[] {
    const informers = this.informers.all();
    recordCacheSilence(this.metrics.informerWatchSilence, informers);
    return staleCaches(informers, this.cacheStaleAfterMs());
  }

  private cacheStaleAfterMs(): number {
    return this.options.cacheStaleAfterMs ?? DEFAULT_CACHE_STALE_AFTER_MS;
  }

  /** True from the first moment of the shutdown (readiness turns false). */
  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Starts the orderly shutdown; start() resolves with 'signal' once it is done. */
  stop(): void {
    this.requestStop('signal');
  }

  /** Runs until the signal aborts, stop() is called, leadership is lost or a runnable fails; says which. */
  async start(signal?: AbortSignal): Promise<StopReason> {
    if (this.started) throw new Error('the manager has already started');
    this.started = true;
    const onAbort = (): void => this.requestStop('signal');
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    const informersStop = new AbortController();
    this.informers.start(informersStop.signal);
    this.refreshSilenceGauge(informersStop.signal);
    this.informers.waitForCacheSync(informersStop.signal).then(
      () => {
        this.synced = true;
        this.logger.info('caches synced');
      },
      () => undefined,
    );
    const standbyStop = new AbortController();
    const standby = this.runAll(
      this.runnables.filter((r) => !r.needLeaderElection),
      standbyStop.signal,
    );
    const leaderStop = new AbortController();
    const leading = { done: Promise.resolve() };
    const lead = (leadership: AbortSignal): Promise<void> => (leading.done = this.lead(AbortSignal.any([leadership, leaderStop.signal])));
    const electionStop = new AbortController();
    const election = this.campaign(electionStop.signal, lead);

    await whenAborted(this.stopRequested.signal);
    signal?.removeEventListener('abort', onAbort);
    await this.shutDown({ leaderStop, leading, electionStop, election, standbyStop, standby, informersStop });
    return this.stopReason;
  }

  private refreshSilenceGauge(signal: AbortSignal): void {
    if (signal.aborted) return;
    recordCacheSilence(this.metrics.informerWatchSilence, this.informers.all());
    this.clock.setTimer(() => this.refreshSilenceGauge(signal), SILENCE_GAUGE_REFRESH_MS, { unref: true });
  }

  private requestStop(reason: StopReason): void {
    if (this.stopRequested.signal.aborted) return;
    this.stopReason = reason;
    this.stopRequested.abort();
  }

  /** Leader election on its own client; without it, this replica leads from the start. */
  private campaign(stop: AbortSignal, lead: (leadership: AbortSignal) => Promise<void>): Promise<void> {
    const le = this.options.leaderElection;
    if (!le) {
      void lead(stop);
      return Promise.resolve();
    }
    const { qps, burst, ...lease } = le;
    const elector = new LeaderElector({
      ...lease,
      client: this.newClient({ qps: qps ?? LEADER_ELECTION_CLIENT_LIMITS.qps, burst: burst ?? LEADER_ELECTION_CLIENT_LIMITS.burst, requestTimeoutMs: le.renewDeadlineMs, userAgentSuffix: 'leader-election' }),
      clock: this.clock,
      logger: this.logger,
      metrics: this.metrics,
      // Not awaited by the elector: the shutdown drains the leader runnables itself (bounded)
      // before it releases the lease, and a hung reconcile must not hold the release up.
      onStartedLeading: (leadership) => {
        leadership.addEventListener('abort', () => this.loseLeadership(), { once: true });
        void lead(leadership);
      },
    });
    // The elector resolves when it stopped or lost the lease; either way this term is over.
    return elector.run(stop).then(() => this.loseLeadership());
  }

  private loseLeadership(): void {
    if (this.stopRequested.signal.aborted) return;
    this.logger.error('leader election lost; stopping so a fresh process campaigns again');
    this.requestStop('lost-leadership');
  }

  /** The leader runnables, once the caches synced, until `signal` aborts. */
  private async lead(signal: AbortSignal): Promise<void> {
    try {
      await this.informers.waitForCacheSync(signal);
    } catch {
      return; // stopped before the caches synced
    }
    if (signal.aborted) return;
    const leaders = this.runnables.filter((r) => r.needLeaderElection);
    this.logger.info({ runnables: leaders.map((r) => r.name) }, 'starting leader runnables');
    await this.runAll(leaders, signal);
  }

  private async runAll(runnables: readonly Runnable[], signal: AbortSignal): Promise<void> {
    await Promise.all(runnables.map((r) => this.run(r, signal)));
  }

  private async run(r: Runnable, signal: AbortSignal): Promise<void> {
    try {
      await r.start(signal);
    } catch (err) {
      if (signal.aborted) {
        this.logger.warn({ err, runnable: r.name }, 'runnable failed while stopping');
        return;
      }
      this.logger.error({ err, runnable: r.name }, 'runnable failed; stopping the manager');
      this.requestStop('failed');
    }
  }

  private async shutDown(s: {
    leaderStop: AbortController;
    leading: { done: Promise<void> };
    electionStop: AbortController;
    election: Promise<void>;
    standbyStop: AbortController;
    standby: Promise<void>;
    informersStop: AbortController;
  }): Promise<void> {
    this.shuttingDown = true;
    const timeoutMs = this.options.gracefulShutdownTimeoutMs ?? 30_000;
    const deadline = this.clock.now() + timeoutMs;
    const left = (): number => Math.max(STEP_FLOOR_MS, deadline - this.clock.now());
    this.logger.info({ reason: this.stopReason, timeoutMs }, 'shutting down');
    // 1. No new work; in-flight reconciles get until the deadline.
    s.leaderStop.abort();
    if (!(await within(this.clock, s.leading.done, deadline - this.clock.now()))) {
      this.logger.warn({ timeoutMs }, 'leader runnables did not finish within the graceful shutdown timeout');
    }
    // 2. Buffered Events reach the API; expectations of this term go.
    if (!(await within(this.clock, Promise.all(this.recorders.map((r) => r.stop())), left()))) {
      this.logger.warn('flushing events did not finish in time');
    }
    for (const e of this.expectations) e.clear();
    // 3. Release the lease (after the drain): a successor takes over at once. A lost lease is
    // not ours to release; that elector has already ended.
    if (this.stopReason !== 'lost-leadership') s.electionStop.abort();
    await within(this.clock, s.election, Math.min(LEASE_RELEASE_MAX_MS, left()));
    // 4. Every-replica runnables: webhooks finish in-flight requests, probes and metrics close.
    s.standbyStop.abort();
    if (!(await within(this.clock, s.standby, left()))) this.logger.warn('runnables did not stop in time');
    // 5. Caches.
    s.informersStop.abort();
    await within(this.clock, this.informers.stopped(), INFORMERS_STOP_MS);
    this.logger.info({ reason: this.stopReason }, 'manager stopped');
  }

  private newClient(o: Pick<KubeClientOptions, 'qps' | 'burst' | 'requestTimeoutMs'> & { userAgentSuffix?: string }): KubeClient {
    const { kubeConfig, transport, userAgent } = this.options;
    const agent = userAgent && o.userAgentSuffix ? `${userAgent}/${o.userAgentSuffix}` : userAgent;
    return new KubeClient({ kubeConfig, transport, qps: o.qps, burst: o.burst, requestTimeoutMs: o.requestTimeoutMs, userAgent: agent || undefined, clock: this.clock, metrics: this.metrics });
  }
}
