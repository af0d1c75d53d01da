import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { failedPodEvent } from '../../src/core/pods/failed-pod.ts';
import { pod } from './fixtures.ts';

const withStatus = (p: V1Pod, status: Partial<NonNullable<V1Pod['status']>>): V1Pod => ({ ...p, status: { ...p.status, ...status } });

describe('failedPodEvent (kruise #2481)', () => {
  const running = pod({ name: 'cs-aaaaa' });

  it.each([
    ['Running -> Failed', 'Running', 'Failed', true],
    ['Pending -> Failed', 'Pending', 'Failed', true],
    ['Failed -> Failed (another write to a failed pod)', 'Failed', 'Failed', false],
    ['Running -> Running', 'Running', 'Running', false],
    ['Running -> Succeeded', 'Running', 'Succeeded', false],
  ])('%s: an Event %s', (_name, from, to, want) => {
    expect(failedPodEvent(withStatus(running, { phase: from }), withStatus(running, { phase: to })) !== undefined).toBe(want);
  });

  it('names the pod and the kubelet\'s reason, and says a new pod takes its place', () => {
    const event = failedPodEvent(running, withStatus(running, { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' }));
    expect(event).toEqual({
      type: 'Warning',
      reason: 'PodFailed',
      message: 'pod cs-aaaaa entered phase Failed (Evicted: The node was low on resource: memory.): it no longer counts as a replica and a new pod takes its place; the failed pod is kept for inspection',
    });
    expect(failedPodEvent(running, withStatus(running, { phase: 'Failed' }))?.message).toMatch(/^pod cs-aaaaa entered phase Failed: /);
  });
});
