import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextKey, reservedSlots } from '../../src/core/fair-share.ts';
import { FairLimiter } from '../../src/http/fair-limiter.ts';

describe('nextKey', () => {
  const limits = { total: 4, perKey: 2 };
  it.each<[string, string[], Record<string, number>, string | undefined]>([
    ['nothing waits', [], {}, undefined],
    ['the first key in order', ['a', 'b'], {}, 'a'],
    ['a key at its share is passed over', ['a', 'b'], { a: 2 }, 'b'],
    ['every waiting key at its share: nothing starts', ['a'], { a: 2, b: 1 }, undefined],
    ['all slots taken: nothing starts', ['c'], { a: 2, b: 2 }, undefined],
  ])('%s', (_name, order, running, expected) => {
    expect(nextKey(order, new Map(Object.entries(running)), limits)).toBe(expected);
  });

  it.each<[string, string[], Record<string, number>, string | undefined]>([
    // 16 slots, 4 a namespace: namespaces with a call running fill at most 12.
    ['busy namespaces below 12: the next busy call starts', ['a'], { a: 3, b: 4, c: 4 }, 'a'],
    ['12 running: a busy namespace waits', ['a', 'd'], { a: 3, b: 4, c: 4, x: 1 }, 'd'],
    ['12 running: a namespace with nothing running still starts', ['d'], { a: 4, b: 4, c: 4 }, 'd'],
    ['12 running: only busy ones wait', ['a'], { a: 3, b: 4, c: 4, d: 1 }, undefined],
    ['four hanging namespaces cannot take the reserve', ['e'], { a: 3, b: 3, c: 3, d: 3 }, 'e'],
  ])('the reserve for idle namespaces: %s', (_name, order, running, expected) => {
    expect(nextKey(order, new Map(Object.entries(running)), { total: 16, perKey: 4 })).toBe(expected);
  });

  it.each([
    [16, 4, 4],
    [4, 4, 0],
    [4, 3, 1],
    [8, 2, 2],
    [1, 1, 0],
  ])('total %i, per namespace %i: %i reserved', (total, perKey, reserved) => {
    expect(reservedSlots({ total, perKey })).toBe(reserved);
  });
});

/** Simulates the limiter's rules over calls that each finish after a random number of steps. */
describe('FairLimiter (property)', () => {
  it('never runs more than total nor more than perKey for a key, leaves no slot idle that a waiting call may take, and finishes all', async () => {
    const calls = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(calls, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 3 }), async (keys, total, perKey, seed) => {
        const limiter = new FairLimiter({ total, perKey });
        const share = Math.min(perKey, total);
        const reserved = reservedSlots({ total, perKey: share });
        const running = new Map<string, number>();
        const waiting = new Map<string, number>();
        for (const k of keys) waiting.set(k, (waiting.get(k) ?? 0) + 1);
        const releases: (() => void)[] = [];
        const done = keys.map((key) =>
          limiter.run(key, async () => {
            waiting.set(key, waiting.get(key)! - 1);
            running.set(key, (running.get(key) ?? 0) + 1);
            expect(running.get(key)).toBeLessThanOrEqual(share);
            expect([...running.values()].reduce((s, n) => s + n, 0)).toBeLessThanOrEqual(total);
            await new Promise<void>((r) => releases.push(r));
            running.set(key, running.get(key)! - 1);
          }),
        );
        for (let step = 0; step < 1_000 && limiter.pending > 0; step++) {
          await new Promise((r) => setImmediate(r));
          const busy = [...running.values()].reduce((s, n) => s + n, 0);
          // A free slot is taken by any waiting call that may take it: below the reserve, every
          // waiting key is at its share; in the reserve, every waiting key has a call running.
          if (busy < total - reserved) {
            for (const [k, n] of waiting) if (n > 0) expect(running.get(k) ?? 0).toBe(share);
          } else if (busy < total) {
            for (const [k, n] of waiting) if (n > 0) expect(running.get(k) ?? 0).toBeGreaterThan(0);
          }
          // Release a call: the oldest, or another one, as the seed says.
          const at = releases.length > 0 ? (step * seed) % releases.length : 0;
          releases.splice(at, 1)[0]?.();
        }
        await Promise.all(done);
        expect(limiter.pending).toBe(0);
        // Nothing running or waiting: no namespace is remembered.
        expect(limiter.trackedKeys).toBe(0);
      }),
      { numRuns: 100 },
    );
  });

  it('round-robin: with two keys always waiting, starts alternate between them', async () => {
    const limiter = new FairLimiter({ total: 1, perKey: 1 });
    const started: string[] = [];
    const releases: (() => void)[] = [];
    const run = (key: string) => limiter.run(key, () => new Promise<void>((r) => (started.push(key), releases.push(r))));
    const all = [...Array.from({ length: 4 }, () => run('busy')), run('quiet'), run('quiet')];
    while (releases.length > 0 || limiter.pending > 0) {
      await new Promise((r) => setImmediate(r));
      releases.shift()?.();
    }
    await Promise.all(all);
    expect(started).toEqual(['busy', 'quiet', 'busy', 'quiet', 'busy', 'busy']);
  });
});

describe('FairLimiter forgets idle namespaces', () => {
  it('10,000 namespaces that each made a call leave no state behind', async () => {
    const limiter = new FairLimiter({ total: 16, perKey: 4 });
    for (let i = 0; i < 10_000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => limiter.run(`ns-${i + j}`, () => Promise.resolve())));
    }
    await new Promise((r) => setImmediate(r));
    expect(limiter.trackedKeys).toBe(0);
  });

  it('a call abandoned while waiting leaves no state behind either', async () => {
    const limiter = new FairLimiter({ total: 1, perKey: 1 });
    let release!: () => void;
    const first = limiter.run('a', () => new Promise<void>((r) => (release = r)));
    const abort = new AbortController();
    const waiting = limiter.run('b', () => Promise.resolve(), abort.signal);
    abort.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    release();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(limiter.trackedKeys).toBe(0);
  });
});
