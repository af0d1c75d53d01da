// Leader election for the controllers: campaign for the Lease, run `lead(signal)` while holding
// it. stop() releases the lease (after the caller has drained its controllers) so a successor
// takes over at once; `ended` says whether we stopped or lost the lease.
import { LeaderElector, type KubeClient, type Logger, type RuntimeMetrics } from '@cloneset-suite/kube-runtime';

export interface LeaderOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  metrics: RuntimeMetrics;
  /** Runs while leading; `signal` aborts when leadership ends. */
  lead: (signal: AbortSignal) => Promise<void>;
}

export interface LeaderHandle {
  isLeader(): boolean;
  /** 'stopped' after stop(); 'lost' when the lease was lost or could not be renewed. */
  readonly ended: Promise<'stopped' | 'lost'>;
  /** Gives the lease up; resolves once released (or after `timeoutMs`). */
  stop(timeoutMs: number): Promise<void>;
}

export function startLeaderElection(o: LeaderOptions): LeaderHandle {
  const stopSignal = new AbortController();
  let released!: () => void;
  const releasedPromise = new Promise<void>((resolve) => (released = resolve));
  const elector = new LeaderElector({
    client: o.client,
    namespace: o.namespace,
    name: o.name,
    identity: o.identity,
    leaseDurationMs: o.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs,
    releaseOnCancel: true,
    logger: o.logger,
    metrics: o.metrics,
    onStartedLeading: (signal) => o.lead(signal),
    // Called before the release write; the write itself is awaited inside run().
    onStoppedLeading: () => undefined,
  });
  const run = elector.run(stopSignal.signal).finally(released);
  const ended = run.then(() => (stopSignal.signal.aborted ? ('stopped' as const) : ('lost' as const)));
  return {
    isLeader: () => elector.isLeader(),
    ended,
    async stop(timeoutMs) {
      stopSignal.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([releasedPromise, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    },
  };
}
