import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.ts';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../src/queue/rate-limiter.ts';
import { WorkQueue } from '../../src/queue/work-queue.ts';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.ts';

function newQueue(clock = new FakeClock()) {
  return {
    clock,
    q: new WorkQueue<string>({
      name: 'test',
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
    }),
  };
}

describe('WorkQueue', () => {
  it('deduplicates keys that are queued', () => {
    const { q } = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(q.tryGet()).toBe('a');
    expect(q.tryGet()).toBe('b');
    expect(q.tryGet()).toBeUndefined();
  });

  it('never hands out a key being processed; a re-add during processing re-queues it once', () => {
    const { q } = newQueue();
    q.add('a');
    expect(q.tryGet()).toBe('a');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(0);
    expect(q.tryGet()).toBeUndefined();
    q.done('a');
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('get() waits for an add', async () => {
    const { q } = newQueue();
    const got = q.get();
    await flushMicrotasks();
    q.add('x');
    await expect(got).resolves.toBe('x');
  });

  it('addAfter delays the add and the earliest pending delay wins', async () => {
    const { q, clock } = newQueue();
    q.addAfter('a', 1000);
    q.addAfter('a', 5000); // later: ignored
    await clock.advance(999);
    expect(q.len()).toBe(0);
    await clock.advance(1);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    q.done('a');

    q.addAfter('b', 5000);
    q.addAfter('b', 100); // earlier: replaces
    await clock.advance(100);
    expect(q.tryGet()).toBe('b');
    q.done('b');
    await clock.advance(10_000);
    expect(q.len()).toBe(0);
  });

  it('addRateLimited backs off exponentially per key and forget resets it', async () => {
    const { q, clock } = newQueue();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const start = clock.now();
      q.addRateLimited('a');
      while (q.len() === 0) await clock.advance(1);
      delays.push(clock.now() - start);
      expect(q.tryGet()).toBe('a');
      q.done('a');
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
  });

  it('caps the per-key backoff at 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 100; i++) last = limiter.when('k');
    expect(last).toBe(1_000_000);
    expect(limiter.when('other')).toBe(5);
  });

  it('the bucket limiter admits a burst of 100 then 10 per second', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(0);
    expect(limiter.when('k100')).toBeCloseTo(100);
    expect(limiter.when('k101')).toBeCloseTo(200);
  });

  it('the default limiter takes the max of per-key and bucket delays', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    const max = new MaxOfRateLimiter<string>(
      new ItemExponentialFailureRateLimiter<string>(1, 10),
      new ItemExponentialFailureRateLimiter<string>(3, 10),
    );
    expect(max.when('x')).toBe(3);
    expect(max.numRequeues('x')).toBe(1);
  });

  it('shutDown releases waiting getters, drops delayed keys and ignores adds', async () => {
    const { q, clock } = newQueue();
    const waiting = q.get();
    q.addAfter('later', 100);
    q.shutDown();
    await expect(waiting).resolves.toBeUndefined();
    q.add('a');
    await clock.advance(1000);
    expect(q.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('shutDownWithDrain waits for keys being processed', async () => {
    const { q } = newQueue();
    q.add('a');
    q.add('b');
    const a = q.tryGet()!;
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    await flushMicrotasks();
    expect(drained).toBe(false);
    expect(q.tryGet()).toBeUndefined(); // no new work after shutdown
    q.done(a);
    await drain;
    expect(drained).toBe(true);
  });

  it('reports depth, adds and retries under controller-runtime names', async () => {
    const clock = new FakeClock();
    const metrics = createMetrics();
    const q = new WorkQueue<string>({ name: 'cs', clock, metrics });
    q.add('a');
    q.add('a');
    q.add('b');
    await clock.advance(7);
    q.tryGet();
    q.addRateLimited('z');
    const text = await metrics.registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="cs",controller="cs"} 2');
    expect(text).toContain('workqueue_depth{name="cs",controller="cs"} 1');
    expect(text).toContain('workqueue_retries_total{name="cs",controller="cs"} 1');
    expect(text).toMatch(/workqueue_queue_duration_seconds_count\{name="cs",controller="cs"\} 1/);
    await clock.advance(1500);
    const later = await metrics.registry.metrics();
    expect(later).toMatch(/workqueue_longest_running_processor_seconds\{name="cs",controller="cs"\} 1\.49/);
    q.shutDown();
  });

  it('property: no key is ever processed twice at once, and every add is eventually processed', () => {
    const keys = ['a', 'b', 'c', 'd'];
    const op = fc.oneof(
      fc.record({ t: fc.constant('add' as const), k: fc.constantFrom(...keys) }),
      fc.record({ t: fc.constant('get' as const) }),
      fc.record({ t: fc.constant('done' as const), i: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const { q } = newQueue();
        const processing = new Set<string>();
        const owed = new Set<string>(); // added since its last hand-out began
        const take = (): void => {
          const k = q.tryGet();
          if (k === undefined) return;
          expect(processing.has(k)).toBe(false);
          processing.add(k);
          owed.delete(k);
        };
        for (const o of ops) {
          if (o.t === 'add') {
            q.add(o.k);
            owed.add(o.k);
          } else if (o.t === 'get') {
            take();
          } else {
            const list = [...processing];
            const k = list[o.i % Math.max(1, list.length)];
            if (k !== undefined) {
              processing.delete(k);
              q.done(k);
            }
          }
          expect(q.len()).toBeLessThanOrEqual(keys.length);
        }
        // Drain: finish everything in flight, then process until empty.
        for (const k of [...processing]) {
          processing.delete(k);
          q.done(k);
        }
        for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
          owed.delete(k);
          q.done(k);
        }
        expect([...owed]).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
