// Why a pod is unavailable: isAvailable is unavailability's chain as a yes or no, and each
// question of that chain has a pod that fails only it.
import { describe, expect, it } from 'vitest';
import { KUSION_CONTROL_LABEL, POL_LABELS } from '@cloneset-suite/api-types';
import { unavailabilityText } from '../../src/core/pods/availability.ts';
import { isAvailable, unavailability } from '../../src/core/pods/pod-state.ts';
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

  // One pod per question of the chain: dropping a question from unavailability makes its pod
  // available to isAvailable too, and its row fails.
  const serviceAvailable = { ...controlled, [POL_LABELS.serviceAvailable]: 'true' };
  const inOperation = { ...serviceAvailable, 'operating.podopslifecycle.kusionstack.io/cloneset': '1' };
  it.each<[string, PodOpts, number, string | undefined]>([
    ['available', {}, 0, undefined],
    ['available after minReadySeconds', { readySinceSec: 40 }, 30, undefined],
    ['available, Normal lifecycle state', { state: 'Normal' }, 0, undefined],
    ['available, controlled and service-available', { labels: serviceAvailable }, 0, undefined],
    ['phase', { phase: 'Pending' }, 0, 'phase'],
    ['notReady', { ready: false }, 0, 'notReady'],
    ['inPlaceUpdate', { ipuReady: false }, 0, 'inPlaceUpdate'],
    ['minReadySeconds', { readySinceSec: 10 }, 30, 'minReadySeconds'],
    ['lifecycleState', { state: 'PreparingDelete' }, 0, 'lifecycleState'],
    ['podOpsOperation', { labels: inOperation }, 0, 'podOpsOperation'],
    ['notServiceAvailable', { labels: controlled }, 0, 'notServiceAvailable'],
  ])('isAvailable and unavailability agree: %s', (_name, opts, minReadySeconds, cause) => {
    const p = pod(opts);
    expect(unavailability(p, minReadySeconds, NOW)?.cause).toBe(cause);
    expect(isAvailable(p, minReadySeconds, NOW)).toBe(cause === undefined);
  });
});
