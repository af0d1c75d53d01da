// Durations of the PodTransitionRule engine's outbound webhook calls by outcome, measured around
// its WebhookCaller port (the engine and its HTTP client stay unaware of metrics).
import { Histogram, type Registry } from 'prom-client';
import type { WebhookCaller } from '@cloneset-suite/transition-rule';

export const WEBHOOK_CALL_METRIC = 'cloneset_suite_transition_rule_webhook_call_duration_seconds';
const METHODS = ['post', 'get'] as const;
const OUTCOMES = ['success', 'error'] as const;

export type WebhookCallHistogram = Histogram<'method' | 'outcome'>;

/** The histogram, registered once per registry, with every method/outcome series at 0. */
export function webhookCallHistogram(registry: Registry): WebhookCallHistogram {
  const existing = registry.getSingleMetric(WEBHOOK_CALL_METRIC) as WebhookCallHistogram | undefined;
  if (existing) return existing;
  const h = new Histogram({
    name: WEBHOOK_CALL_METRIC,
    help: 'PodTransitionRule webhook calls (post: check, get: poll) by outcome; error covers timeouts, refused connections and unreadable answers',
    labelNames: ['method', 'outcome'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  for (const method of METHODS) for (const outcome of OUTCOMES) h.zero({ method, outcome });
  return h;
}

export function timedWebhookCaller(inner: WebhookCaller, histogram: WebhookCallHistogram, nowMs: () => number = Date.now): WebhookCaller {
  const timed = async (method: (typeof METHODS)[number], call: () => Promise<unknown>): Promise<unknown> => {
    const started = nowMs();
    let outcome: (typeof OUTCOMES)[number] = 'error';
    try {
      const answer = await call();
      outcome = 'success';
      return answer;
    } finally {
      histogram.observe({ method, outcome }, (nowMs() - started) / 1000);
    }
  };
  return {
    post: (call, body) => timed('post', () => inner.post(call, body)),
    get: (call) => timed('get', () => inner.get(call)),
    // The controller closes the caller it is given when it stops: the wrapped client with it.
    close: () => inner.close(),
  };
}
