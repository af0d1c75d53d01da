import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { deletionCost, sameNodeRanks, sortForScaleIn, spreadRanks } from '../../src/core/scale/scale-in-order.ts';
import { NOW, pod, type PodOpts } from './fixtures.ts';

const order = (pods: V1Pod[], extra: Partial<Parameters<typeof sortForScaleIn>[1]> = {}) =>
  sortForScaleIn(pods, { minReadySeconds: 0, nowMs: NOW, ...extra }).map((p) => p.metadata!.name);

// Each row: two pods where `first` must be deleted before `second` (OpenKruise's scale-in order).
describe('deletion order rules', () => {
  it.each<[string, PodOpts, PodOpts]>([
    ['1. unassigned before assigned', { node: '' }, { node: 'n1' }],
    ['2. Pending before Running', { phase: 'Pending', node: 'n1' }, { node: 'n2' }],
    ['2. Unknown before Running', { phase: 'Unknown', node: 'n1' }, { node: 'n2' }],
    ['3. not available (lifecycle) before available', { state: 'PreparingNormal', node: 'n1' }, { node: 'n2' }],
    ['3. not ready before ready', { ready: false, node: 'n1' }, { node: 'n2' }],
    ['4. lower deletion cost first', { cost: -5, node: 'n1' }, { cost: 10, node: 'n2' }],
    ['6. ready more recently first', { readySinceSec: 10, node: 'n1' }, { readySinceSec: 100, node: 'n2' }],
    ['7. more restarts first', { restarts: 3, node: 'n1' }, { restarts: 1, node: 'n2' }],
    ['8. newer first', { createdSec: 10, node: 'n1' }, { createdSec: 1000, node: 'n2' }],
  ])('%s', (_rule, first, second) => {
    const a = pod({ ...first, name: 'first' });
    const b = pod({ ...second, name: 'second' });
    expect(order([b, a])).toEqual(['first', 'second']);
    expect(order([a, b])).toEqual(['first', 'second']);
  });

  it('3. availability uses minReadySeconds', () => {
    const young = pod({ name: 'young', readySinceSec: 10, node: 'n1', createdSec: 5000 });
    const old = pod({ name: 'old', readySinceSec: 100, node: 'n2', createdSec: 1 });
    expect(order([old, young], { minReadySeconds: 60 })).toEqual(['young', 'old']);
  });

  it('invalid deletion cost counts as 0', () => {
    const p = pod({});
    p.metadata!.annotations = { 'controller.kubernetes.io/pod-deletion-cost': 'abc' };
    expect(deletionCost(p)).toBe(0);
  });

  it('5. pods stacked on a node go before a lone pod (same-node spread)', () => {
    const a1 = pod({ name: 'a1', node: 'a', readySinceSec: 100 });
    const a2 = pod({ name: 'a2', node: 'a', readySinceSec: 200 });
    const b1 = pod({ name: 'b1', node: 'b', readySinceSec: 10 });
    // Without spread b1 (most recently ready) would go first.
    expect(order([a1, a2, b1])[0]).toBe('a1');
  });

  it('same-node ranks: k-1..1 and 0 for the survivor (the spec example)', () => {
    const p0 = pod({ name: 'p0', node: 'a', readySinceSec: 1 });
    const p4 = pod({ name: 'p4', node: 'a', readySinceSec: 2 });
    const p10 = pod({ name: 'p10', node: 'a', readySinceSec: 3 });
    const lone = pod({ name: 'lone', node: 'b' });
    const r = sameNodeRanks([p10, lone, p4, p0]);
    expect([r.get(p0), r.get(p4), r.get(p10), r.get(lone) ?? 0]).toEqual([2, 1, 0, 0]);
  });

  it('topology spread ranker: pods in the crowded zone go first', () => {
    const template = { spec: { containers: [], topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] } };
    const nodeLabels = new Map([
      ['n1', { zone: 'z1' }],
      ['n2', { zone: 'z1' }],
      ['n3', { zone: 'z2' }],
    ]);
    const z1a = pod({ name: 'z1a', node: 'n1', readySinceSec: 500 });
    const z1b = pod({ name: 'z1b', node: 'n2', readySinceSec: 400 });
    const z2 = pod({ name: 'z2', node: 'n3', readySinceSec: 1 });
    const ranks = spreadRanks([z1a, z1b, z2], { minReadySeconds: 0, nowMs: NOW, template, nodeLabels: (n) => nodeLabels.get(n) });
    expect(ranks.get(z1a)! + ranks.get(z1b)!).toBeGreaterThan(ranks.get(z2)! * 2);
    expect(order([z2, z1a, z1b], { template, nodeLabels: (n) => nodeLabels.get(n) })[0]).not.toBe('z2');
  });
});
