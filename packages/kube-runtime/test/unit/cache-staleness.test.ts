// A cache whose watch has been silent or broken for longer than the staleness
// threshold (below the 5-minute expectation window) is reported (metric, readiness) and no
// controller acts on it until it is fresh again.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { done } from '../../src/controller/action.ts';
import { Controller } from '../../src/controller/controller.ts';
import { EXPECTATION_TIMEOUT_MS } from '../../src/expectations.ts';
import { DEFAULT_CACHE_STALE_AFTER_MS } from '../../src/informer/staleness.ts';
import { objectKey } from '../../src/keys.ts';
import { Manager } from '../../src/manager.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeSource } from '../support/fake-source.ts';
import { FakeTransport, LiveStream, status, type FakeAnswer } from '../support/fake-transport.ts';

async function tick(clock: FakeClock, ms = 0): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
  await clock.advance(ms);
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setImmediate(r));
    await flushMicrotasks();
  }
}

/** One configmap; watches stay open (the test pushes bookmarks) until `apiDown` makes every request fail. */
function cluster() {
  const streams: LiveStream[] = [];
  const state = { apiDown: false };
  const transport = new FakeTransport((req: HttpRequest): FakeAnswer => {
    if (state.apiDown) return status(503, 'ServiceUnavailable', 'apiserver down');
    if (!req.query?.watch) return { body: { metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' } }] } };
    const s = new LiveStream(req.signal);
    streams.push(s);
    return { stream: s };
  });
  const bookmark = (rv: string): void => {
    for (const s of streams) s.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: rv } } });
  };
  const breakWatches = (): void => {
    state.apiDown = true;
    for (const s of streams) s.end();
  };
  return { transport, bookmark, breakWatches, state };
}

describe('cache staleness', () => {
  it('the threshold lies below the expectation window', () => {
    expect(DEFAULT_CACHE_STALE_AFTER_MS).toBeLessThan(EXPECTATION_TIMEOUT_MS);
  });

  it('measures the silence since the last list, event or bookmark', async () => {
    const clock = new FakeClock();
    const c = cluster();
    const mgr = new Manager({ transport: c.transport, clock, qps: 0 });
    const informer = mgr.informers.informerFor<KubeObject>(Resources.configMaps);
    const done = mgr.start();
    await tick(clock, 10);
    expect(informer.silentForMs()).toBeLessThanOrEqual(10);
    await tick(clock, 50_000);
    expect(informer.silentForMs()).toBeGreaterThanOrEqual(50_000);
    c.bookmark('6');
    await tick(clock);
    expect(informer.silentForMs()).toBe(0);
    mgr.stop();
    await done;
  });

  it('reports a broken watch in staleCaches() and the silence gauge, and recovers with the watch', async () => {
    const clock = new FakeClock();
    const c = cluster();
    const registry = new Registry();
    const mgr = new Manager({ transport: c.transport, clock, qps: 0, registry, cacheStaleAfterMs: 120_000 });
    mgr.informers.informerFor<KubeObject>(Resources.configMaps);
    const done = mgr.start();
    await tick(clock, 10);
    // A quiet but healthy watch: a bookmark every minute keeps it fresh.
    for (let i = 0; i < 3; i++) {
      await tick(clock, 60_000);
      c.bookmark(String(6 + i));
    }
    await tick(clock);
    expect(mgr.staleCaches()).toEqual([]);
    c.breakWatches();
    await tick(clock, 119_000);
    expect(mgr.staleCaches()).toEqual([]);
    await tick(clock, 2_000);
    expect(mgr.staleCaches()).toEqual([expect.objectContaining({ resource: 'configmaps', silentMs: expect.any(Number) })]);
    expect(mgr.staleCaches()[0]!.silentMs).toBeGreaterThan(120_000);
    expect(await registry.getSingleMetricAsString('informer_watch_silence_seconds')).toMatch(/informer_watch_silence_seconds\{resource="configmaps"\} 1[2-9]\d/);
    // The apiserver comes back: the next watch (after the reflector's backoff) delivers a bookmark.
    c.state.apiDown = false;
    await tick(clock, 60_000);
    c.bookmark('20');
    await tick(clock);
    expect(mgr.staleCaches()).toEqual([]);
    mgr.stop();
    await done;
  });

  it('a controller does not reconcile from a stale source; it requeues and acts once fresh', async () => {
    const clock = new FakeClock();
    const source = new FakeSource<KubeObject>();
    let silentMs = 0;
    Object.assign(source, { silentForMs: () => silentMs });
    const seen: string[] = [];
    const controller = new Controller({
      name: 'demo',
      clock,
      cacheStaleAfterMs: 120_000,
      reconcile: (key) => {
        seen.push(key);
        return Promise.resolve(done());
      },
    });
    controller.watches(source, (o) => objectKey(o));
    const stop = new AbortController();
    const run = controller.start(stop.signal);
    await tick(clock);
    silentMs = 200_000;
    source.add({ metadata: { name: 'a', namespace: 'ns' } });
    await tick(clock, 30_000);
    expect(seen).toEqual([]);
    silentMs = 0;
    await tick(clock, 10_000);
    expect(seen).toEqual(['ns/a']);
    stop.abort();
    await tick(clock);
    await run;
  });
});
