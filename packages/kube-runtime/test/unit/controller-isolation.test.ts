// One slow key must not stall the others. Several workers by default, and a
// deadline on each reconcile (its signal aborts; the key is retried with backoff).
import { describe, expect, it } from 'vitest';
import { done, type ReconcileAction } from '../../src/controller/action.ts';
import { Controller, DEFAULT_MAX_CONCURRENT_RECONCILES, type ReconcileContext } from '../../src/controller/controller.ts';
import { abortedByStop } from '../../src/controller/errors.ts';
import { createMetrics } from '../../src/metrics.ts';
import { FakeClock, flushMicrotasks, sleep } from '../../src/util/clock.ts';
import { FakeSource } from '../support/fake-source.ts';

interface Obj {
  metadata: { name: string; namespace: string };
}
const obj = (name: string): Obj => ({ metadata: { name, namespace: 'ns' } });

async function settle(clock: FakeClock, ms = 0): Promise<void> {
  await clock.advance(ms);
  await new Promise((r) => setImmediate(r));
  await flushMicrotasks();
}

/** "ns/slow" waits 5 minutes for its (signal-aware) API calls; every other key takes 10 ms. */
function setup(options: { maxConcurrentReconciles?: number; reconcileTimeoutMs?: number } = {}) {
  const clock = new FakeClock();
  const metrics = createMetrics();
  const finished = new Map<string, number>();
  const aborted: string[] = [];
  /** Per aborted key: whether its signal said the controller is stopping (not its deadline). */
  const byStop = new Map<string, boolean>();
  const source = new FakeSource<Obj>();
  const reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileAction> => {
    try {
      await sleep(clock, key === 'ns/slow' ? 300_000 : 10, ctx.signal);
      finished.set(key, clock.now());
      return done();
    } catch (err) {
      aborted.push(key);
      byStop.set(key, abortedByStop(ctx.signal));
      throw err;
    }
  };
  const controller = new Controller({ name: 'demo', reconcile, clock, metrics, ...options });
  controller.watches(source, (o) => `${o.metadata.namespace}/${o.metadata.name}`);
  return { clock, metrics, source, controller, finished, aborted, byStop };
}

describe('Controller isolation between keys', () => {
  it('runs several workers by default, as kruise does', () => {
    expect(DEFAULT_MAX_CONCURRENT_RECONCILES).toBe(3);
  });

  it('a slow key does not delay a healthy one beyond its own latency (default options)', async () => {
    const { clock, source, controller, finished } = setup();
    const stop = new AbortController();
    const run = controller.start(stop.signal);
    await settle(clock);
    source.add(obj('slow'));
    await settle(clock, 1);
    const healthyQueuedAt = clock.now();
    source.add(obj('healthy'));
    await settle(clock, 50);
    expect(finished.get('ns/healthy')).toBe(healthyQueuedAt + 10);
    expect(finished.has('ns/slow')).toBe(false);
    stop.abort();
    await settle(clock);
    await run;
  });

  it('aborts a reconcile at its deadline and retries the key with backoff', async () => {
    const { clock, metrics, source, controller, aborted, byStop } = setup({ reconcileTimeoutMs: 30_000 });
    const stop = new AbortController();
    const run = controller.start(stop.signal);
    await settle(clock);
    source.add(obj('slow'));
    await settle(clock, 29_999);
    expect(aborted).toEqual([]);
    await settle(clock, 1);
    expect(aborted).toEqual(['ns/slow']);
    expect(byStop.get('ns/slow')).toBe(false);
    expect((await metrics.reconcileTotal.get()).values.find((v) => v.labels.result === 'error')?.value).toBe(1);
    expect(controller.queue.numRequeues('ns/slow')).toBe(1);
    stop.abort();
    await settle(clock);
    await run;
  });

  it('a reconcile cut by the controller stopping sees a ControllerStoppedError reason, not its deadline', async () => {
    const { clock, source, controller, aborted, byStop } = setup({ reconcileTimeoutMs: 30_000 });
    const stop = new AbortController();
    const run = controller.start(stop.signal);
    await settle(clock);
    source.add(obj('slow'));
    await settle(clock, 1_000);
    stop.abort();
    await settle(clock);
    await run;
    expect(aborted).toEqual(['ns/slow']);
    expect(byStop.get('ns/slow')).toBe(true);
  });

  it('has a deadline by default', async () => {
    const { clock, source, controller, aborted } = setup();
    const stop = new AbortController();
    const run = controller.start(stop.signal);
    await settle(clock);
    source.add(obj('slow'));
    await settle(clock, 120_000);
    expect(aborted).toContain('ns/slow');
    stop.abort();
    await settle(clock);
    await run;
  });
});
