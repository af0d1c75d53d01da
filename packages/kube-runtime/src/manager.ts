// The manager owns what controllers share: one client (one rate limit), one informer factory
// (one cache per GVR and scope), one metrics registry, one logger, optional leader election.
// start() runs informers at once (a standby keeps a warm cache), controllers only while leading,
// and stops everything on abort or on losing the lease.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { KubeClient } from './client/client.ts';
import type { Transport } from './client/transport.ts';
import { Controller, type ControllerOptions } from './controller.ts';
import { EventRecorder } from './events.ts';
import { ScaleExpectations } from './expectations.ts';
import { InformerFactory } from './informer/factory.ts';
import { LeaderElector } from './leader-election.ts';
import { silentLogger, type Logger } from './logger.ts';
import { createMetrics, type RuntimeMetrics } from './metrics.ts';
import { realClock, type Clock } from './util/clock.ts';

export interface ManagerOptions {
  kubeConfig?: KubeConfig;
  transport?: Transport;
  qps?: number;
  burst?: number;
  /** Per-request answer timeout (default 60 s). */
  requestTimeoutMs?: number;
  userAgent?: string;
  /** The registry /metrics serves; a fresh one per manager by default. */
  registry?: Registry;
  logger?: Logger;
  clock?: Clock;
  defaultResyncMs?: number;
  leaderElection?: {
    namespace: string;
    name: string;
    identity: string;
    leaseDurationMs?: number;
    renewDeadlineMs?: number;
    retryPeriodMs?: number;
    releaseOnCancel?: boolean;
  };
}

export type StopReason = 'signal' | 'lost-leadership';

export class Manager {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  private readonly options: ManagerOptions;
  private readonly controllers: Controller[] = [];
  private readonly recorders: EventRecorder[] = [];
  private readonly expectations: ScaleExpectations[] = [];
  private readonly stopController = new AbortController();

  constructor(options: ManagerOptions) {
    this.options = options;
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger();
    this.metrics = createMetrics(options.registry);
    this.client = new KubeClient({
      ...(options.kubeConfig ? { kubeConfig: options.kubeConfig } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.qps !== undefined ? { qps: options.qps } : {}),
      ...(options.burst !== undefined ? { burst: options.burst } : {}),
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      clock: this.clock,
      metrics: this.metrics,
    });
    this.informers = new InformerFactory({
      client: this.client,
      clock: this.clock,
      logger: this.logger,
      metrics: this.metrics,
      ...(options.defaultResyncMs !== undefined ? { defaultResyncMs: options.defaultResyncMs } : {}),
    });
  }

  /** A controller sharing the manager's clock, logger and metrics. */
  addController(options: Omit<ControllerOptions, 'clock' | 'logger' | 'metrics'>): Controller {
    const c = new Controller({ ...options, clock: this.clock, logger: this.logger, metrics: this.metrics });
    this.controllers.push(c);
    return c;
  }

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

  /** Expectations whose expiry requeues the owner on `controller`. */
  scaleExpectations(controller: Controller, timeoutMs?: number): ScaleExpectations {
    const e = new ScaleExpectations({
      controller: controller.name,
      clock: this.clock,
      metrics: this.metrics,
      onExpired: (key) => controller.enqueue(key),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    this.expectations.push(e);
    return e;
  }

  /** Stops everything; start() resolves once in-flight reconciles have returned. */
  stop(): void {
    this.stopController.abort(new Error('manager stopped'));
  }

  /** Runs until the signal aborts, stop() is called or leadership is lost; says which. */
  async start(signal?: AbortSignal): Promise<StopReason> {
    const stop = this.stopController.signal;
    const onAbort = (): void => this.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.stop();
    const informersStop = new AbortController();
    this.informers.start(informersStop.signal);
    let reason: StopReason = 'signal';
    try {
      const le = this.options.leaderElection;
      if (!le) {
        await this.runControllers(stop);
      } else {
        const elector = new LeaderElector({
          ...le,
          client: this.client,
          clock: this.clock,
          logger: this.logger,
          metrics: this.metrics,
          onStartedLeading: (leading) => this.runControllers(leading),
        });
        await elector.run(stop);
        if (!stop.aborted) reason = 'lost-leadership';
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await Promise.all(this.recorders.map((r) => r.stop()));
      for (const e of this.expectations) e.clear();
      informersStop.abort();
      await this.informers.stopped();
      this.logger.info({ reason }, 'manager stopped');
    }
    return reason;
  }

  private async runControllers(signal: AbortSignal): Promise<void> {
    try {
      await this.informers.waitForCacheSync(signal);
    } catch {
      return; // stopped before the caches synced
    }
    // Like controller-runtime's Start: run until stopped, even with no controller registered.
    await Promise.all([...this.controllers.map((c) => c.start(signal)), aborted(signal)]);
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
