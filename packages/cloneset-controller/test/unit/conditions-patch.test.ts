import { describe, expect, it } from 'vitest';
import type { DeepReadonly, KubeObject } from '@cloneset-suite/kube-runtime';
import { conditionsPatch } from '../../src/reconciler/executor.ts';

const NOW = '2026-01-01T00:00:10Z';
const THEN = '2026-01-01T00:00:00Z';
const pod = (conditions: { type: string; status: string; reason?: string }[], gates = ['InPlaceUpdateReady', 'KruisePodReady']) =>
  ({
    metadata: { name: 'p' },
    spec: { readinessGates: gates.map((conditionType) => ({ conditionType })) },
    status: { conditions: conditions.map((c) => ({ ...c, lastTransitionTime: THEN })) },
  }) as unknown as DeepReadonly<KubeObject>;

describe('conditionsPatch (pod /status writes of the shell)', () => {
  it('a gate turning False takes PodReady down in the same write (§8.7 step 2)', () => {
    const out = conditionsPatch(pod([{ type: 'Ready', status: 'True' }, { type: 'InPlaceUpdateReady', status: 'True' }]), [{ type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' }], NOW);
    expect(out).toEqual([
      { type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate', message: null, lastTransitionTime: NOW },
      expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', lastTransitionTime: NOW }),
    ]);
  });

  it('a gate turning True clears a stale reason and message and leaves PodReady to the kubelet', () => {
    const out = conditionsPatch(pod([{ type: 'Ready', status: 'False' }, { type: 'InPlaceUpdateReady', status: 'False', reason: 'StartInPlaceUpdate' }]), [{ type: 'InPlaceUpdateReady', status: 'True' }], NOW);
    expect(out).toEqual([{ type: 'InPlaceUpdateReady', status: 'True', reason: null, message: null, lastTransitionTime: NOW }]);
  });

  it('keeps the transition time when the status does not change; ignores non-gate conditions for PodReady', () => {
    const out = conditionsPatch(pod([{ type: 'Ready', status: 'True' }, { type: 'KruisePodReady', status: 'True' }], ['InPlaceUpdateReady']), [{ type: 'KruisePodReady', status: 'True' }, { type: 'Other', status: 'False' }], NOW);
    expect(out).toEqual([
      { type: 'KruisePodReady', status: 'True', reason: null, message: null, lastTransitionTime: THEN },
      { type: 'Other', status: 'False', reason: null, message: null, lastTransitionTime: NOW },
    ]);
  });
});
