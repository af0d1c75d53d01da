import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { conditionWrites, podReadiness } from '../../src/core/pods/pod-conditions.ts';

const THEN = '2026-01-01T00:00:00Z';
const NOW_MS = Date.parse('2026-01-01T00:00:10Z');
const NOW = '2026-01-01T00:00:10Z';
const pod = (conditions: { type: string; status: string; reason?: string }[], gates = ['InPlaceUpdateReady', 'KruisePodReady']): V1Pod =>
  ({
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'main' }], readinessGates: gates.map((conditionType) => ({ conditionType })) },
    status: { phase: 'Running', containerStatuses: [{ name: 'main', ready: true }], conditions: conditions.map((c) => ({ ...c, lastTransitionTime: THEN })) },
  }) as unknown as V1Pod;

describe('conditionWrites (the planned pod /status write)', () => {
  it('a gate turning False takes PodReady down in the same write', () => {
    const out = conditionWrites(pod([{ type: 'Ready', status: 'True' }, { type: 'InPlaceUpdateReady', status: 'True' }]), [{ type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' }], NOW_MS);
    expect(out).toEqual([
      { type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate', message: null, lastTransitionTime: NOW },
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', lastTransitionTime: NOW }),
    ]);
  });

  it('a gate turning True clears a stale reason and message and leaves PodReady to the kubelet', () => {
    const out = conditionWrites(pod([{ type: 'Ready', status: 'False' }, { type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' }]), [{ type: 'InPlaceUpdateReady', status: 'True' }], NOW_MS);
    expect(out).toEqual([{ type: 'InPlaceUpdateReady', status: 'True', reason: null, message: null, lastTransitionTime: NOW }]);
  });

  it('keeps the transition time when the status does not change; ignores non-gate conditions for PodReady', () => {
    const out = conditionWrites(pod([{ type: 'Ready', status: 'True' }, { type: 'KruisePodReady', status: 'True' }], ['InPlaceUpdateReady']), [{ type: 'KruisePodReady', status: 'True' }, { type: 'Other', status: 'False' }], NOW_MS);
    expect(out).toEqual([
      { type: 'KruisePodReady', status: 'True', reason: null, message: null, lastTransitionTime: THEN },
      { type: 'Other', status: 'False', reason: null, message: null, lastTransitionTime: NOW },
    ]);
  });

  it('property: a write that closes a gate leaves the pod with Ready False; one that closes none never touches Ready', () => {
    const gate = fc.constantFrom('InPlaceUpdateReady', 'KruisePodReady', 'Other');
    const status = fc.constantFrom<'True' | 'False'>('True', 'False');
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ type: gate, status }), { minLength: 1, maxLength: 3, selector: (c) => c.type }), fc.boolean(), (changes, readyBefore) => {
        const p = pod([{ type: 'Ready', status: readyBefore ? 'True' : 'False' }]);
        const out = conditionWrites(p, changes, NOW_MS);
        const closes = changes.some((c) => c.status === 'False' && c.type !== 'Other');
        const readyWrite = out.find((w) => w.type === 'Ready');
        if (closes) expect(readyBefore ? readyWrite?.status : 'False').toBe('False');
        else expect(readyWrite).toBeUndefined();
        expect(out.slice(0, changes.length).map((w) => w.type)).toEqual(changes.map((c) => c.type));
      }),
    );
  });
});

describe('podReadiness (Pod Ready++, seed 003)', () => {
  it('needs Running, every container ready and every gate True', () => {
    expect(podReadiness(pod([{ type: 'InPlaceUpdateReady', status: 'True' }, { type: 'KruisePodReady', status: 'True' }]))).toBe(true);
    expect(podReadiness(pod([{ type: 'InPlaceUpdateReady', status: 'True' }]))).toBe(false);
    expect(podReadiness(pod([], []))).toBe(true);
    const notRunning = pod([], []);
    notRunning.status!.phase = 'Pending';
    expect(podReadiness(notRunning)).toBe(false);
  });
});
