import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { done as settled } from '../../src/controller/action.ts';
import { Manager } from '../../src/manager.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeTransport, LiveStream } from '../support/fake-transport.ts';

async function tick(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
  await clock.advance(ms);
}

describe('Manager', () => {
  it('wires informers to controllers on one registry, and stop() ends everything', async () => {
    const clock = new FakeClock();
    const streams: LiveStream[] = [];
    const transport = new FakeTransport((req) => {
      if (!req.query?.watch) {
        return { body: { metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' } }] } };
      }
      const s = new LiveStream(req.signal);
      streams.push(s);
      return { stream: s };
    });
    const registry = new Registry();
    const mgr = new Manager({ transport, clock, registry, qps: 0 });
    const seen: string[] = [];
    mgr
      .controller('cm', { maxConcurrentReconciles: 2 })
      .for(mgr.informers.informerFor<KubeObject>(Resources.configMaps))
      .complete(() => (_obj, ctx) => {
        seen.push(ctx.key);
        return Promise.resolve(settled());
      });
    const done = mgr.start();
    await tick(clock, 200);
    streams[0]!.push({ type: 'ADDED', object: { metadata: { name: 'b', namespace: 'ns', resourceVersion: '6' } } });
    await tick(clock, 10);
    expect(seen).toEqual(['ns/a', 'ns/b']);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="cm",result="success"} 2');
    expect(text).toContain('rest_client_requests_total{code="200",method="GET",host="fake:6443"} 2');
    mgr.stop();
    await expect(done).resolves.toBe('signal');
  });

  it('gives its controllers the manager-wide reconcile deadline', async () => {
    const clock = new FakeClock();
    const transport = new FakeTransport((req) => (req.query?.watch ? { stream: new LiveStream(req.signal) } : { body: { metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' } }] } }));
    const mgr = new Manager({ transport, clock, qps: 0, reconcileTimeoutMs: 5_000 });
    const aborted: number[] = [];
    mgr
      .controller('slow')
      .for(mgr.informers.informerFor<KubeObject>(Resources.configMaps))
      .complete(() => (_obj, ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted.push(clock.now());
            reject(new Error('aborted'));
          });
        }),
      );
    const done = mgr.start();
    await tick(clock, 200);
    const started = clock.now();
    expect(aborted).toEqual([]);
    await tick(clock, 5_000);
    expect(aborted).toHaveLength(1);
    expect(aborted[0]! - started).toBeLessThanOrEqual(5_000);
    mgr.stop();
    await expect(done).resolves.toBe('signal');
  });
});
