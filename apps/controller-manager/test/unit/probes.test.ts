import { describe, expect, it } from 'vitest';
import { createProbeServer } from '../../src/server/probes.ts';
import { createMetricsServer } from '../../src/server/metrics-server.ts';
import { createMetrics } from '@cloneset-suite/kube-runtime';

describe('probes', () => {
  it('answers ok, or 500 naming the failed checks', async () => {
    let synced = false;
    const app = createProbeServer({ healthz: { ping: () => true }, readyz: { ping: () => true, 'informer-sync': () => synced } });
    expect((await app.inject('/healthz')).body).toBe('ok');
    const notReady = await app.inject('/readyz');
    expect(notReady.statusCode).toBe(500);
    expect(notReady.body).toContain('[-]informer-sync failed');
    synced = true;
    const ready = await app.inject('/readyz');
    expect([ready.statusCode, ready.body]).toEqual([200, 'ok']);
    expect((await app.inject('/readyz?verbose')).body).toContain('[+]informer-sync ok');
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
