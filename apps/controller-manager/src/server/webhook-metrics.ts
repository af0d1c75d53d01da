// controller-runtime's webhook metrics, on the manager's registry.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface WebhookMetrics {
  requests: Counter<'webhook' | 'code'>;
  latency: Histogram<'webhook'>;
  inFlight: Gauge<'webhook'>;
}

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    }),
    latency: new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    inFlight: new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    }),
  };
}

/** Every webhook's series at 0 from the start, so latency and error panels and alerts have a series to read. */
export function initWebhookSeries(metrics: WebhookMetrics, paths: readonly string[]): void {
  for (const webhook of paths) {
    metrics.latency.zero({ webhook });
    metrics.inFlight.set({ webhook }, 0);
    for (const code of ['200', '500']) metrics.requests.inc({ webhook, code }, 0);
  }
}
