import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '@cloneset-suite/kube-runtime';
import { createMetricsServer } from '../../src/server/metrics-server.ts';
import { probeAnswer } from '../../src/server/probe-report.ts';
import { createProbeServer, registerReadinessMetrics } from '../../src/server/probes.ts';
import { readinessChecks } from '../../src/server/readiness-checks.ts';

describe('probeAnswer', () => {
  it.each([
    { name: 'all pass', results: [{ name: 'a', ok: true, gating: true }], verbose: false, code: 200, body: 'ok' },
    { name: 'a gating check fails', results: [{ name: 'a', ok: false, gating: true }], verbose: false, code: 500, body: '[-]a failed\ncheck failed: a\n' },
    { name: 'an informational check fails', results: [{ name: 'a', ok: true, gating: true }, { name: 'c', ok: false, gating: false }], verbose: false, code: 200, body: 'ok' },
    {
      name: 'verbose lists both kinds',
      results: [{ name: 'a', ok: true, gating: true }, { name: 'c', ok: false, gating: false }],
      verbose: true,
      code: 200,
      body: '[+]a ok\n[-]c not yet (informational, does not gate)\ncheck passed\n',
    },
  ])('$name', ({ results, verbose, code, body }) => {
    expect(probeAnswer(results, verbose)).toEqual({ code, body });
  });

  it('fails exactly when a gating check fails', () => {
    const results = fc.array(fc.record({ name: fc.string(), ok: fc.boolean(), gating: fc.boolean() }));
    fc.assert(fc.property(results, fc.boolean(), (rs, verbose) => (probeAnswer(rs, verbose).code === 500) === rs.some((r) => r.gating && !r.ok)));
  });
});

/** A manager whose caches are as bad as an idle one's get: never synced, every watch silent. */
const idleManager = (shuttingDown = false) => ({ hasSynced: () => false, staleCaches: () => [{ resource: 'clonesets' }], isShuttingDown: () => shuttingDown });

describe('/readyz', () => {
  it('answers ok, or 500 naming the failed checks', async () => {
    let serving = false;
    const app = createProbeServer(readinessChecks({ manager: idleManager(), webhookServer: { isReady: () => serving } }));
    expect((await app.inject('/healthz')).body).toBe('ok');
    const notReady = await app.inject('/readyz');
    expect(notReady.statusCode).toBe(500);
    expect(notReady.body).toContain('[-]webhook-certificates failed');
    serving = true;
    const ready = await app.inject('/readyz');
    expect([ready.statusCode, ready.body]).toEqual([200, 'ok']);
  });

  it('is the webhook server readiness: stale or unsynced caches are shown on ?verbose, never make it fail', async () => {
    const app = createProbeServer(readinessChecks({ manager: idleManager(), webhookServer: { isReady: () => true } }));
    expect((await app.inject('/readyz')).statusCode).toBe(200);
    const verbose = await app.inject('/readyz?verbose');
    expect(verbose.statusCode).toBe(200);
    expect(verbose.body).toContain('[+]webhook-certificates ok');
    expect(verbose.body).toContain('[-]informer-sync not yet (informational, does not gate)');
    expect(verbose.body).toContain('[-]cache-fresh not yet (informational, does not gate)');
  });

  it('without a webhook server (--webhook-port=0): ready unless shutting down', async () => {
    expect((await createProbeServer(readinessChecks({ manager: idleManager() })).inject('/readyz')).statusCode).toBe(200);
    const stopping = await createProbeServer(readinessChecks({ manager: idleManager(true) })).inject('/readyz');
    expect(stopping.statusCode).toBe(500);
    expect(stopping.body).toMatch(/\[-\]shutting-down failed\n(.*\n)*check failed: shutting-down\n$/);
  });

  it('shows every check in the metrics, the caches as information', async () => {
    const registry = new Registry();
    registerReadinessMetrics(registry, readinessChecks({ manager: idleManager(), webhookServer: { isReady: () => true } }));
    const text = await registry.metrics();
    expect(text).toContain('cloneset_suite_readiness_check{check="webhook-certificates",gating="true"} 1');
    expect(text).toContain('cloneset_suite_readiness_check{check="informer-sync",gating="false"} 0');
    expect(text).toContain('cloneset_suite_readiness_check{check="cache-fresh",gating="false"} 0');
  });
});

describe('/metrics', () => {
  it('serves the registry with controller-runtime names', async () => {
    const metrics = createMetrics();
    metrics.reconcileTotal.inc({ controller: 'cloneset', result: 'success' });
    const res = await createMetricsServer(metrics.registry).inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toContain('controller_runtime_reconcile_total{controller="cloneset",result="success"} 1');
  });
});
