// Why a pod is unavailable, in the order isAvailable asks: the answer is undefined exactly when
// isAvailable says available, and it names the first test the pod fails.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { unavailability, unavailabilityText } from '../../src/core/pods/availability.ts';
import { isAvailable } from '../../src/core/pods/pod-state.ts';
import { NOW, pod, type PodOpts } from './fixtures.ts';

const controlled = { [KUSION_CONTROL_LABEL]: 'true' };

describe('unavailability', () => {
  it.each<[string, PodOpts, number, string | undefined]>([
    ['available', {}, 0, undefined],
    ['pending, not scheduled', { phase: 'Pending', node: '' }, 0, 'phase Pending, not scheduled yet'],
    ['not ready', { ready: false }, 0, 'not Ready'],
    ['an in-place update under way', { ipuReady: false }, 0, 'InPlaceUpdateReady False (in-place update under way)'],
    ['ready for less than minReadySeconds', { readySinceSec: 10 }, 30, 'Ready for 10s of minReadySeconds 30'],
    ['a lifecycle state', { state: 'PreparingUpdate' }, 0, 'lifecycle state PreparingUpdate'],
    ['controlled, not service-available', { labels: controlled }, 0, `PodOpsLifecycle: not ${POL_LABELS.serviceAvailable} yet`],
  ])('%s', (_name, opts, minReadySeconds, expected) => {
    const why = unavailability(pod(opts), minReadySeconds, NOW);
    expect(why && unavailabilityText(why)).toBe(expected);
  });

  it('property: undefined exactly when isAvailable', () => {
    const opts = fc.record({
      phase: fc.constantFrom('Running', 'Pending', 'Succeeded'),
      ready: fc.boolean(),
      ipuReady: fc.boolean(),
      readySinceSec: fc.integer({ min: 0, max: 60 }),
      state: fc.constantFrom('', 'Normal', 'PreparingUpdate', 'Updated'),
      controlled: fc.boolean(),
      serviceAvailable: fc.boolean(),
    });
    fc.assert(
      fc.property(opts, fc.constantFrom(0, 20), (o, minReadySeconds) => {
        const labels = o.controlled ? { ...controlled, ...(o.serviceAvailable ? { [POL_LABELS.serviceAvailable]: 'true' } : {}) } : {};
        const p = pod({ phase: o.phase, ready: o.ready, ipuReady: o.ipuReady, readySinceSec: o.readySinceSec, ...(o.state ? { state: o.state } : {}), labels });
        expect(unavailability(p, minReadySeconds, NOW) === undefined).toBe(isAvailable(p, minReadySeconds, NOW));
      }),
    );
  });
});
