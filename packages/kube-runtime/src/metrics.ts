// Prometheus metrics under controller-runtime's and client-go's names and labels, so existing
// dashboards work. One RuntimeMetrics per manager, on an injectable Registry (tests stay isolated).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

// controller-runtime's reconcile_time buckets and client-go's workqueue buckets (1e-8 * 10^n).
const reconcileBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const workqueueBuckets = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);
const restLatencyBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export interface RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly reconcileTimeouts: Counter<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly workqueueDepth: Gauge<'name' | 'controller'>;
  readonly workqueueAdds: Counter<'name' | 'controller'>;
  readonly workqueueQueueDuration: Histogram<'name' | 'controller'>;
  readonly workqueueWorkDuration: Histogram<'name' | 'controller'>;
  readonly workqueueRetries: Counter<'name' | 'controller'>;
  readonly workqueueUnfinishedWork: Gauge<'name' | 'controller'>;
  readonly workqueueLongestRunning: Gauge<'name' | 'controller'>;
  readonly restClientRequests: Counter<'code' | 'method' | 'host'>;
  readonly restClientLatency: Histogram<'verb' | 'host'>;
  readonly restClientRateLimiterDuration: Histogram<'verb' | 'host'>;
  readonly leaderElectionMasterStatus: Gauge<'name'>;
  readonly expectationsExpired: Counter<'controller'>;
  readonly informerRelists: Counter<'resource'>;
  readonly eventsAggregated: Counter<'reason'>;
  readonly eventsDropped: Counter<'reason'>;
  readonly informerWatchSilence: Gauge<'resource'>;
}

/** Registers every runtime metric on `registry` (a fresh one by default). Call once per registry. */
export function createMetrics(registry: Registry = new Registry()): RuntimeMetrics {
  const registers = [registry];
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcilePanics: new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics (thrown non-Error values) per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileBuckets,
      registers,
    }),
    reconcileTimeouts: new Counter({
      name: 'controller_runtime_reconcile_timeouts_total',
      help: 'Reconciles whose signal was aborted at the reconcile deadline (counted as errors too)',
      labelNames: ['controller'],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    workqueueDepth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'],
      registers,
    }),
    workqueueAdds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    }),
    workqueueQueueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: workqueueBuckets,
      registers,
    }),
    workqueueWorkDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'],
      buckets: workqueueBuckets,
      registers,
    }),
    workqueueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    }),
    workqueueUnfinishedWork: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'How many seconds of work has been done that is in progress and has not been observed by work_duration',
      labelNames: ['name', 'controller'],
      registers,
    }),
    workqueueLongestRunning: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name', 'controller'],
      registers,
    }),
    restClientRequests: new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host',
      labelNames: ['code', 'method', 'host'],
      registers,
    }),
    restClientLatency: new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb and host',
      labelNames: ['verb', 'host'],
      buckets: restLatencyBuckets,
      registers,
    }),
    restClientRateLimiterDuration: new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client side rate limiter latency in seconds. Broken down by verb and host',
      labelNames: ['verb', 'host'],
      buckets: restLatencyBuckets,
      registers,
    }),
    leaderElectionMasterStatus: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    }),
    expectationsExpired: new Counter({
      name: 'controller_expectations_expired_total',
      help: 'Expectations dropped because the cache did not observe them before the timeout',
      labelNames: ['controller'],
      registers,
    }),
    informerRelists: new Counter({
      name: 'informer_relists_total',
      help: 'Full lists done by informers (first sync, 410 Gone, watch failures)',
      labelNames: ['resource'],
      registers,
    }),
    eventsAggregated: new Counter({
      name: 'event_recorder_aggregated_total',
      help: 'Repeated events folded into an existing Event series instead of a new write',
      labelNames: ['reason'],
      registers,
    }),
    eventsDropped: new Counter({
      name: 'event_recorder_dropped_total',
      help: 'Events not written because the recorder queue was full (the apiserver is slow or down)',
      labelNames: ['reason'],
      registers,
    }),
    informerWatchSilence: new Gauge({
      name: 'informer_watch_silence_seconds',
      help: 'Seconds since the informer last saw a watch event or bookmark (or since its watch broke); readyz fails past the staleness threshold',
      labelNames: ['resource'],
      registers,
    }),
  };
}

/** Every value of controller_runtime_reconcile_total's result label. */
export const RECONCILE_RESULTS = ['success', 'error', 'requeue', 'requeue_after'] as const;

/**
 * Creates every series of one controller and its workqueue at 0, as controller-runtime does when
 * a controller is built: without them `rate()` panels and alerts on errors or retries see no
 * series at all on a healthy manager (absent is not 0 in PromQL).
 */
export function initControllerSeries(metrics: RuntimeMetrics, controller: string): void {
  const labels = { controller };
  for (const result of RECONCILE_RESULTS) metrics.reconcileTotal.inc({ controller, result }, 0);
  metrics.reconcileErrors.inc(labels, 0);
  metrics.reconcilePanics.inc(labels, 0);
  metrics.reconcileTime.zero(labels);
  metrics.activeWorkers.set(labels, 0);
  metrics.expectationsExpired.inc(labels, 0);
  initQueueSeries(metrics, { name: controller, controller });
}

/** Every series of one workqueue at 0 (client-go registers them when the queue is made). */
export function initQueueSeries(metrics: RuntimeMetrics, labels: { name: string; controller: string }): void {
  metrics.workqueueDepth.set(labels, 0);
  metrics.workqueueAdds.inc(labels, 0);
  metrics.workqueueRetries.inc(labels, 0);
  metrics.workqueueQueueDuration.zero(labels);
  metrics.workqueueWorkDuration.zero(labels);
  metrics.workqueueUnfinishedWork.set(labels, 0);
  metrics.workqueueLongestRunning.set(labels, 0);
}
