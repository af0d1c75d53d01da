// The manager's /healthz and /readyz checks. Readiness is the webhook server's own
// (controller-runtime's webhook StartedChecker): a replica with its certificate loaded and
// listening answers admission whatever its caches do, and /readyz gates the webhook Service.
// Controller caches gate the controllers (a stale cache is not reconciled from) and are only
// shown here: an idle watch going silent is normal, and must never take every replica out of the
// Service at once. Without a webhook server (--webhook-port=0) a replica is ready once its probe
// server listens and it is not shutting down: only registered checks gate, as in controller-runtime.
import type { ProbeChecks } from './probes.ts';

export interface ReadinessSources {
  manager: { hasSynced(): boolean; staleCaches(): readonly unknown[]; isShuttingDown(): boolean };
  webhookServer?: { isReady(): boolean } | undefined;
}

export function readinessChecks({ manager, webhookServer }: ReadinessSources): ProbeChecks {
  return {
    healthz: { ping: () => true },
    readyz: {
      ping: () => true,
      ...(webhookServer ? { 'webhook-certificates': () => webhookServer.isReady() } : {}),
      'shutting-down': () => !manager.isShuttingDown(),
    },
    readyzInformational: {
      'informer-sync': () => manager.hasSynced(),
      // No watch silent past the staleness threshold (README "Stale caches").
      'cache-fresh': () => manager.staleCaches().length === 0,
    },
  };
}
