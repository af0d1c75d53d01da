import { planReconcile } from '@cloneset-suite/cloneset-controller';
import type { V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unavailability, type Unavailability } from '../../src/core/pod-availability.ts';
import { NOW, cloneSet, inputOf, pod, revisionOf, type PodOptions } from './plan-fixtures.ts';

const rev = revisionOf(cloneSet()).metadata!.name!;
const ns = `${BigInt(NOW - 60_000) * 1_000_000n}`;
const inOperation = { 'operating.podopslifecycle.kusionstack.io/cloneset': ns, 'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update', 'pre-check.podopslifecycle.kusionstack.io/cloneset': ns };

function withStatus(p: V1Pod, change: { phase?: string; inPlaceReady?: string }): V1Pod {
  const conditions = (p.status?.conditions ?? []).map((c) => (c.type === 'InPlaceUpdateReady' && change.inPlaceReady ? { ...c, status: change.inPlaceReady } : c));
  return { ...p, status: { ...p.status, ...(change.phase ? { phase: change.phase } : {}), conditions } };
}

describe('unavailability', () => {
  const cases: [string, V1Pod, number, Unavailability | undefined][] = [
    ['Running, Ready, Normal', pod('web-a', { revision: rev }), 0, undefined],
    ['Pending', withStatus(pod('web-a', { revision: rev }), { phase: 'Pending' }), 0, { reason: 'phase Pending' }],
    ['not Ready', pod('web-a', { revision: rev, ready: false }), 0, { reason: 'not Ready' }],
    ['an in-place update under way', withStatus(pod('web-a', { revision: rev }), { inPlaceReady: 'False' }), 0, { reason: 'InPlaceUpdateReady False (in-place update under way)' }],
    ['Ready for 4s of minReadySeconds 10', pod('web-a', { revision: rev, readyForSeconds: 4 }), 10, { reason: 'Ready for 4s of minReadySeconds 10', availableInMs: 6_001 }],
    ['Ready exactly minReadySeconds: not yet', pod('web-a', { revision: rev, readyForSeconds: 10 }), 10, { reason: 'Ready for 10s of minReadySeconds 10', availableInMs: 1 }],
    ['Ready past minReadySeconds', pod('web-a', { revision: rev, readyForSeconds: 11 }), 10, undefined],
    ['lifecycle state Updating', pod('web-a', { revision: rev, labels: { 'lifecycle.apps.kruise.io/state': 'Updating' } }), 0, { reason: 'lifecycle state Updating' }],
    ['controlled, in an operation', pod('web-a', { revision: rev, controlled: true, labels: inOperation }), 0, { reason: 'in PodOpsLifecycle operation cloneset/update (PreCheck)' }],
    [
      'controlled, not service-available yet',
      pod('web-a', { revision: rev, labels: { 'kusionstack.io/control': 'true' } }),
      0,
      { reason: 'PodOpsLifecycle: not podopslifecycle.kusionstack.io/service-available yet' },
    ],
    ['an operation on an uncontrolled pod counts for nothing', pod('web-a', { revision: rev, labels: inOperation }), 0, undefined],
  ];
  it.each(cases)('%s', (_, p, minReadySeconds, expected) => {
    expect(unavailability(p, minReadySeconds, NOW)).toEqual(expected);
  });

  const podOptions = fc.record({
    phase: fc.constantFrom('Running', 'Pending'),
    ready: fc.boolean(),
    readyForSeconds: fc.integer({ min: 0, max: 40 }),
    inPlaceReady: fc.constantFrom('True', 'False'),
    state: fc.constantFrom('', 'Normal', 'PreparingNormal', 'PreparingUpdate', 'Updating', 'Updated'),
    controlled: fc.boolean(),
    serviceAvailable: fc.boolean(),
    operating: fc.boolean(),
  });

  it('counts the pods the controller counts as unavailable (its diff tallies)', () => {
    fc.assert(
      fc.property(fc.array(podOptions, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 30 }), (options, minReadySeconds) => {
        const pods = options.map((o, i) => {
          const labels: Record<string, string> = {
            'lifecycle.apps.kruise.io/state': o.state,
            ...(o.controlled ? { 'kusionstack.io/control': 'true' } : {}),
            ...(o.serviceAvailable ? { 'podopslifecycle.kusionstack.io/service-available': 'true' } : {}),
            ...(o.operating ? inOperation : {}),
          };
          const built: PodOptions = { revision: rev, ready: o.ready, readyForSeconds: o.readyForSeconds, labels };
          return withStatus(pod(`web-p${i}`, built), { phase: o.phase, inPlaceReady: o.inPlaceReady });
        });
        const cs = cloneSet({ replicas: pods.length, minReadySeconds });
        const plan = planReconcile(inputOf(cs, pods, [revisionOf(cs)]));
        if (plan.sync.step === 'none') throw new Error('the CloneSet is not being deleted');
        const { unavailableNew, unavailableOld } = plan.sync.scaleDiffs.tallies;
        expect(pods.filter((p) => unavailability(p, minReadySeconds, NOW) !== undefined).length).toBe(unavailableNew + unavailableOld);
      }),
      { numRuns: 300 },
    );
  });
});
