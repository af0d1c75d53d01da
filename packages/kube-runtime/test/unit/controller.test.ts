import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { done as settled, requeueAfter, type ReconcileAction } from '../../src/controller/action.ts';
import { Controller, type ReconcileContext } from '../../src/controller/controller.ts';
import { LostRaceError, TerminalError } from '../../src/controller/errors.ts';
import { ApiError, TooManyRequestsError } from '../../src/client/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { ItemExponentialFailureRateLimiter } from '../../src/queue/rate-limiter.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';
import { FakeSource } from '../support/fake-source.ts';

interface Obj {
  metadata: { name: string; namespace: string; ownerName?: string };
}
const obj = (name: string, ownerName?: string): Obj => ({
  metadata: { name, namespace: 'ns', ownerName },
});

/** Event-loop turns per settle: a worker takes one after each reconcile before its next key. */
const SETTLE_TURNS = 5;

/** Gives the controller's loop (p-queue, awaits, a turn between reconciles) time to move on fake time. */
async function settle(clock: FakeClock, ms = 0): Promise<void> {
  await clock.advance(ms);
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await new Promise((r) => setImmediate(r));
  await flushMicrotasks();
}

function setup(
  reconcile: (key: string, ctx: ReconcileContext) => Promise<ReconcileAction>,
  maxConcurrentReconciles = 1,
) {
  const clock = new FakeClock();
  const metrics = createMetrics();
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const source = new FakeSource<Obj>();
  const controller = new Controller({
    name: 'demo',
    reconcile,
    maxConcurrentReconciles,
    clock,
    metrics,
    logger: createLogger({ level: 'debug', destination }),
    rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000),
  });
  controller.watches(source, (o) => `${o.metadata.namespace}/${o.metadata.ownerName ?? o.metadata.name}`);
  return { clock, metrics, lines, source, controller };
}

describe('Controller', () => {
  it('maps events to keys, dedupes them and reconciles each key', async () => {
    const seen: string[] = [];
    const { clock, source, controller } = setup((key) => {
      seen.push(key);
      return Promise.resolve(settled());
    });
    source.add(obj('p1', 'cs1'));
    source.add(obj('p2', 'cs1'));
    source.update(obj('p3', 'cs2'), obj('p3', 'cs3')); // both old and new owner
    const done = controller.start();
    await settle(clock);
    expect(seen.sort()).toEqual(['ns/cs1', 'ns/cs2', 'ns/cs3']);
    controller.stop();
    await done;
  });

  it('is running from start() until stop(), not before (a standby never starts it)', async () => {
    const { clock, controller } = setup(() => Promise.resolve(settled()));
    expect(controller.running).toBe(false);
    const done = controller.start();
    await settle(clock);
    expect(controller.running).toBe(true);
    controller.stop();
    expect(controller.running).toBe(false);
    await done;
    expect(controller.running).toBe(false);
  });

  it('waits for sources to sync before starting workers', async () => {
    const seen: string[] = [];
    const { clock, source, controller } = setup((key) => {
      seen.push(key);
      return Promise.resolve(settled());
    });
    source.synced = false;
    source.add(obj('a'));
    const done = controller.start();
    await settle(clock, 500);
    expect(seen).toEqual([]);
    source.synced = true;
    await settle(clock, 100);
    expect(seen).toEqual(['ns/a']);
    controller.stop();
    await done;
  });

  it('bounds concurrency and never runs one key twice at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const runningKeys = new Set<string>();
    const releases: (() => void)[] = [];
    const { clock, source, controller, metrics } = setup(async (key) => {
      expect(runningKeys.has(key)).toBe(false);
      runningKeys.add(key);
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((r) => releases.push(r));
      running--;
      runningKeys.delete(key);
      return settled();
    }, 3);
    for (let i = 0; i < 10; i++) source.add(obj(`o${i}`));
    const done = controller.start();
    await settle(clock);
    expect(running).toBe(3);
    source.add(obj('o0')); // o0 is running: must wait, then run once more
    source.add(obj('o0'));
    expect(await metrics.registry.getSingleMetricAsString('controller_runtime_active_workers')).toContain(
      'controller_runtime_active_workers{controller="demo"} 3',
    );
    let total = 0;
    while (releases.length > 0) {
      releases.shift()!();
      total++;
      await settle(clock);
    }
    expect(total).toBe(11);
    expect(maxRunning).toBe(3);
    expect(await metrics.registry.getSingleMetricAsString('controller_runtime_max_concurrent_reconciles')).toContain(
      'controller_runtime_max_concurrent_reconciles{controller="demo"} 3',
    );
    controller.stop();
    await done;
  });

  it('creates its error, retry and result series at 0 when built, before any reconcile', async () => {
    const { metrics } = setup(() => Promise.resolve(settled()));
    const text = await metrics.registry.metrics();
    for (const line of [
      'controller_runtime_reconcile_errors_total{controller="demo"} 0',
      'controller_runtime_reconcile_panics_total{controller="demo"} 0',
      'controller_runtime_reconcile_total{controller="demo",result="error"} 0',
      'controller_runtime_reconcile_total{controller="demo",result="requeue_after"} 0',
      'controller_runtime_reconcile_time_seconds_count{controller="demo"} 0',
      'workqueue_retries_total{name="demo",controller="demo"} 0',
      'workqueue_adds_total{name="demo",controller="demo"} 0',
      'workqueue_depth{name="demo",controller="demo"} 0',
      'workqueue_work_duration_seconds_count{name="demo",controller="demo"} 0',
      'controller_expectations_expired_total{controller="demo"} 0',
      'controller_runtime_max_concurrent_reconciles{controller="demo"} 1',
      'controller_runtime_active_workers{controller="demo"} 0',
    ]) {
      expect(text).toContain(line);
    }
  });

  it('retries errors with backoff, counts them and logs with controller, key and reconcileID', async () => {
    const times: number[] = [];
    const { clock, source, controller, metrics, lines } = setup((_key, ctx) => {
      times.push(clock.now());
      return times.length < 4 ? Promise.reject(new Error(`boom ${ctx.retries}`)) : Promise.resolve(settled());
    });
    source.add(obj('a'));
    const done = controller.start();
    for (let i = 0; i < 100; i++) await settle(clock, 1);
    expect(times).toEqual([0, 5, 15, 35]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="demo"} 3');
    expect(text).toContain('controller_runtime_reconcile_total{controller="demo",result="error"} 3');
    expect(text).toContain('controller_runtime_reconcile_total{controller="demo",result="success"} 1');
    const errLine = lines.find((l) => l.msg === 'reconciler error');
    expect(errLine).toMatchObject({ controller: 'demo', key: 'ns/a', level: 'error' });
    expect(typeof errLine?.reconcileID).toBe('string');
    expect((errLine?.err as { message: string }).message).toBe('boom 0');
    controller.stop();
    await done;
  });

  it('a write that lost a race is retried with backoff as a requeue: not counted or logged as an error', async () => {
    const times: number[] = [];
    const { clock, source, controller, metrics, lines } = setup(() => {
      times.push(clock.now());
      return times.length < 3 ? Promise.reject(new LostRaceError('status: the CloneSet changed since the cache read')) : Promise.resolve(settled());
    });
    source.add(obj('a'));
    const done = controller.start();
    for (let i = 0; i < 50; i++) await settle(clock, 1);
    expect(times).toEqual([0, 5, 15]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="demo"} 0');
    expect(text).toContain('controller_runtime_reconcile_total{controller="demo",result="requeue"} 2');
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.filter((l) => l.msg === 'a write lost a race; replanning from a fresher cache')).toHaveLength(2);
    controller.stop();
    await done;
  });

  it('does not retry terminal errors and survives non-Error throws', async () => {
    let calls = 0;
    const { clock, source, controller, metrics } = setup((key) => {
      calls++;
      if (key === 'ns/t') return Promise.reject(new TerminalError('bad spec'));
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return calls < 4 ? Promise.reject('a string') : Promise.resolve(settled());
    });
    source.add(obj('t'));
    const done = controller.start();
    await settle(clock, 10_000);
    expect(calls).toBe(1);
    source.add(obj('s'));
    for (let i = 0; i < 50; i++) await settle(clock, 5);
    expect(calls).toBe(4);
    expect(await metrics.registry.getSingleMetricAsString('controller_runtime_reconcile_panics_total')).toContain('} 2');
    controller.stop();
    await done;
  });

  it('a TooManyRequests error waits at least the Retry-After', async () => {
    const times: number[] = [];
    const { clock, source, controller } = setup(() => {
      times.push(clock.now());
      return times.length === 1
        ? Promise.reject(new TooManyRequestsError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }, 'GET x'))
        : Promise.resolve(settled());
    });
    source.add(obj('a'));
    const done = controller.start();
    await settle(clock);
    await settle(clock, 2_999);
    expect(times).toEqual([0]);
    await settle(clock, 1);
    expect(times).toEqual([0, 3_000]);
    controller.stop();
    await done;
  });

  it('an aggregated error (a pass of several writes) waits for the longest Retry-After of a 429 or 5xx inside it', async () => {
    const times: number[] = [];
    const { clock, source, controller } = setup(() => {
      times.push(clock.now());
      if (times.length > 1) return Promise.resolve(settled());
      const unavailable = new ApiError(503, 'ServiceUnavailable', 'try later', { retryAfterSeconds: 4 }, 'PATCH pods/a');
      const throttled = new TooManyRequestsError(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 2 }, 'DELETE pods/b');
      return Promise.reject(new AggregateError([new Error('plain'), throttled, new Error('wrapped', { cause: unavailable })], 'pass failed'));
    });
    source.add(obj('a'));
    const done = controller.start();
    await settle(clock);
    await settle(clock, 3_999);
    expect(times).toEqual([0]);
    await settle(clock, 1);
    expect(times).toEqual([0, 4_000]);
    controller.stop();
    await done;
  });

  it('requeueAfter comes back after the delay', async () => {
    const times: number[] = [];
    const { clock, source, controller } = setup(() => {
      times.push(clock.now());
      return Promise.resolve(times.length < 3 ? requeueAfter(30_000) : settled());
    });
    source.add(obj('a'));
    const done = controller.start();
    await settle(clock);
    await settle(clock, 30_000);
    await settle(clock, 30_000);
    await settle(clock, 60_000);
    expect(times).toEqual([0, 30_000, 60_000]);
    controller.stop();
    await done;
  });

  it('gives the event loop a turn between reconciles: passes that never wait on I/O do not hold a timer off', async () => {
    // Each pass re-adds its own key while it runs (as a watch event would), so the queue hands
    // it out again at once, and no pass awaits I/O: without a turn in between, every pass runs
    // as microtasks and a due timer (a Lease renewal) waits for the whole chain.
    const CAP = 20_000;
    let passes = 0;
    let timerFired = false;
    const { source, controller } = setup((key) => {
      passes++;
      if (!timerFired && passes < CAP) controller.enqueue(key);
      return Promise.resolve(settled());
    });
    source.add(obj('a'));
    const done = controller.start();
    const passesAtTimer = await new Promise<number>((resolve) =>
      setTimeout(() => {
        timerFired = true;
        resolve(passes);
      }, 1),
    );
    expect(passesAtTimer).toBeGreaterThan(0);
    expect(passesAtTimer).toBeLessThan(CAP);
    controller.stop();
    await done;
  });

  it('stop() aborts in-flight reconciles, starts no new ones and resolves after they return', async () => {
    const started: string[] = [];
    let sawAbort = false;
    const { clock, source, controller } = setup(async (key, ctx) => {
      started.push(key);
      await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      sawAbort = ctx.signal.aborted;
      return settled();
    });
    source.add(obj('a'));
    source.add(obj('b'));
    const ac = new AbortController();
    let finished = false;
    const done = controller.start(ac.signal).then(() => (finished = true));
    await settle(clock);
    expect(started).toEqual(['ns/a']);
    ac.abort();
    await done;
    expect(finished).toBe(true);
    expect(sawAbort).toBe(true);
    expect(started).toEqual(['ns/a']);
    expect(source.handlerCount()).toBe(0);
  });
});

describe('shutdown', () => {
  it('does not count or log as an error a reconcile that fails because it was aborted', async () => {
    const { clock, metrics, lines, source, controller } = setup(async (_key, ctx) => {
      await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      throw new Error('request aborted');
    });
    source.add(obj('a'));
    const ac = new AbortController();
    const done = controller.start(ac.signal);
    await settle(clock);
    ac.abort();
    await done;
    expect((await metrics.reconcileErrors.get()).values.reduce((n, v) => n + v.value, 0)).toBe(0);
    expect((await metrics.reconcileTotal.get()).values.reduce((n, v) => n + v.value, 0)).toBe(0);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});
