import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { applyPriority, applyScatter, defaultUpdateOrder, orderSuffix, sortForUpdate } from '../../src/core/update/update-order.ts';
import { pod } from './fixtures.ts';

const names = (ps: V1Pod[]) => ps.map((p) => p.metadata!.name);

describe('default update order', () => {
  it('TestSortUpdateIndexes example: Pending, Pending-ready, Running, Running-ready', () => {
    const pendingReady = pod({ name: 'pending-ready', phase: 'Pending', ready: true });
    const pending = pod({ name: 'pending', phase: 'Pending', ready: false });
    const runningReady = pod({ name: 'running-ready' });
    const running = pod({ name: 'running', ready: false });
    expect(names(defaultUpdateOrder([runningReady, pendingReady, running, pending]))).toEqual([
      'pending',
      'pending-ready',
      'running',
      'running-ready',
    ]);
  });

  it.each([
    ['unscheduled first', { node: '' }, {}],
    ['more recently ready first', { readySinceSec: 5 }, { readySinceSec: 50 }],
    ['more restarts first', { restarts: 2 }, {}],
    ['newer first', { createdSec: 1 }, { createdSec: 100 }],
  ])('%s', (_n, a, b) => {
    expect(names(defaultUpdateOrder([pod({ ...b, name: 'b' }), pod({ ...a, name: 'a' })]))).toEqual(['a', 'b']);
  });

  it('reads each pod\'s creation time once, not once per comparison (a pass sorts every pod it may update)', () => {
    let reads = 0;
    const pods = Array.from({ length: 200 }, (_, i) => {
      const p = pod({ name: `p${i}`, ready: false });
      const created = new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString();
      Object.defineProperty(p.metadata!, 'creationTimestamp', { get: () => (reads++, created), enumerable: true });
      return p;
    });
    const sorted = defaultUpdateOrder(pods);
    expect(sorted).toHaveLength(200);
    // Newer first: the last second of each minute leads; pods of one second by name.
    expect(names(sorted.slice(0, 4))).toEqual(['p119', 'p179', 'p59', 'p118']);
    expect(reads).toBe(200);
  });
});

describe('priority', () => {
  it('weightPriority: higher weight sum first, ties keep prior order', () => {
    const ps = [pod({ name: 'none' }), pod({ name: 'bar', labels: { k: 'bar' } }), pod({ name: 'foo', labels: { k: 'foo' } }), pod({ name: 'none2' })];
    const out = applyPriority(ps, {
      weightPriority: [
        { weight: 50, matchSelector: { matchLabels: { k: 'foo' } } },
        { weight: 30, matchSelector: { matchLabels: { k: 'bar' } } },
      ],
    });
    expect(names(out)).toEqual(['foo', 'bar', 'none', 'none2']);
  });

  it('orderPriority: term index, then higher suffix; pods without keys first (quirk 2)', () => {
    expect(orderSuffix('sts-10')).toBe(10);
    expect(orderSuffix('abc')).toBe(0);
    const ps = [
      pod({ name: 'o-5', labels: { o: 'o-5' } }),
      pod({ name: 'p-9', labels: { p: 'p-9' } }),
      pod({ name: 'nokey' }),
      pod({ name: 'o-10', labels: { o: 'o-10' } }),
    ];
    expect(names(applyPriority(ps, { orderPriority: [{ orderedKey: 'o' }, { orderedKey: 'p' }] }))).toEqual(['nokey', 'o-10', 'o-5', 'p-9']);
  });
});

describe('scatter', () => {
  it('docs example: 10 candidates, 3 matched -> positions 1, 6 and 10', () => {
    const ps = Array.from({ length: 10 }, (_, i) => pod({ name: `p${i}`, labels: i < 3 ? { foo: 'bar' } : {} }));
    const out = applyScatter(ps, [{ key: 'foo', value: 'bar' }], ps);
    const positions = out.map((p, i) => (p.metadata!.labels!.foo === 'bar' ? i + 1 : 0)).filter((x) => x > 0);
    expect(positions).toEqual([1, 6, 10]);
    expect(new Set(names(out)).size).toBe(10);
  });

  it('leaves the order alone when one side has at most one pod', () => {
    const ps = [pod({ name: 'a', labels: { foo: 'bar' } }), pod({ name: 'b' }), pod({ name: 'c' })];
    expect(names(applyScatter(ps, [{ key: 'foo', value: 'bar' }], ps))).toEqual(['a', 'b', 'c']);
  });

  it('matched pods are spread, the last matched one goes last (total-ratio branch)', () => {
    const all = Array.from({ length: 12 }, (_, i) => pod({ name: `p${i}`, labels: i % 4 === 0 ? { foo: 'bar' } : {} }));
    const cands = all.slice(0, 8); // p0, p4 matched among candidates
    const out = applyScatter(cands, [{ key: 'foo', value: 'bar' }], all);
    expect(out).toHaveLength(8);
    expect(out.at(-1)!.metadata!.labels!.foo).toBe('bar');
  });
});

describe('sortForUpdate', () => {
  it('moves PreparingUpdate pods to the front (stable)', () => {
    const ps = [pod({ name: 'a', ready: false }), pod({ name: 'b', state: 'PreparingUpdate' }), pod({ name: 'c' })];
    expect(names(sortForUpdate(ps, undefined, ps))).toEqual(['b', 'a', 'c']);
  });
});

describe('a stable update order (kruise #2106)', () => {
  // Few distinct values, so most pods tie on everything the default order and priority compare.
  const arbPod = fc.record({
    ready: fc.boolean(),
    restarts: fc.constantFrom(0, 1),
    createdSec: fc.constantFrom(100, 200),
    tier: fc.constantFrom('a', 'b', undefined),
  });
  const strategies = [
    undefined,
    { priorityStrategy: { weightPriority: [{ weight: 10, matchSelector: { matchLabels: { tier: 'a' } } }] } },
    { priorityStrategy: { orderPriority: [{ orderedKey: 'tier' }] } },
    { scatterStrategy: [{ key: 'tier', value: 'b' }] },
  ];

  it('does not depend on the order the cache lists the pods in', () => {
    fc.assert(
      fc.property(fc.array(arbPod, { minLength: 2, maxLength: 12 }), fc.nat(), fc.constantFrom(...strategies), (specs, seed, strategy) => {
        const pods = specs.map((s, i) => pod({ name: `cs-${String(i).padStart(2, '0')}`, ready: s.ready, restarts: s.restarts, createdSec: s.createdSec, ...(s.tier ? { labels: { tier: s.tier } } : {}) }));
        // A permutation of the same pods, as another relist would deliver them.
        const shuffled = pods.map((p, i) => ({ p, k: (i * 7919 + seed) % 104729 })).sort((x, y) => x.k - y.k).map((x) => x.p);
        expect(names(sortForUpdate(shuffled, strategy, shuffled))).toEqual(names(sortForUpdate(pods, strategy, pods)));
      }),
    );
  });

  it('orders pods that tie on everything by name', () => {
    const [b, a, c] = [pod({ name: 'cs-b' }), pod({ name: 'cs-a' }), pod({ name: 'cs-c' })];
    expect(names(defaultUpdateOrder([b, c, a]))).toEqual(['cs-a', 'cs-b', 'cs-c']);
  });
});

