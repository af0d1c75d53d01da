import { describe, expect, it } from 'vitest';
import { instanceIds, podLike } from '../../src/cloned-pods.ts';

describe('instanceIds', () => {
  it('gives distinct 5-character ids of the controller\'s alphabet, none of them taken, the same ones every time', () => {
    const ids = instanceIds(2_000, new Set(['bbbbb', 'bbbbd']));
    expect(new Set(ids).size).toBe(2_000);
    expect(ids).not.toContain('bbbbb');
    expect(ids).not.toContain('bbbbd');
    for (const id of ids) expect(id).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(instanceIds(2_000, new Set(['bbbbb', 'bbbbd']))).toEqual(ids);
  });
});

describe('podLike', () => {
  const sample = {
    metadata: {
      name: 'cs-00-xk2pq',
      namespace: 'ns',
      uid: 'u-1',
      resourceVersion: '42',
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'cs-00', 'apps.kruise.io/cloneset-instance-id': 'xk2pq', 'controller-revision-hash': 'cs-00-5d8f', 'lifecycle.apps.kruise.io/state': 'Normal' },
      annotations: { 'sim.cloneset-suite.io/ready-delay': '300ms' },
      ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs-00', uid: 'cs-uid', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      nodeName: 'kwok-node-0',
      readinessGates: [{ conditionType: 'InPlaceUpdateReady' }, { conditionType: 'KruisePodReady' }],
      containers: [{ name: 'main', image: 'app:v1', volumeMounts: [{ name: 'kube-api-access-abcde' }, { name: 'data' }] }],
      volumes: [{ name: 'kube-api-access-abcde' }, { name: 'data' }],
    },
    status: { phase: 'Running' },
  };

  it('is a pod of the same CloneSet and revision with its own id and name, bound to the node given, without the sample\'s identity, status or token volume', () => {
    const pod = podLike(sample, 'bbbbc', 'kwok-node-3');
    expect(pod.metadata).toEqual({
      name: 'cs-00-bbbbc',
      namespace: 'ns',
      labels: { ...sample.metadata.labels, 'apps.kruise.io/cloneset-instance-id': 'bbbbc' },
      annotations: sample.metadata.annotations,
      ownerReferences: sample.metadata.ownerReferences,
    });
    expect(pod).not.toHaveProperty('status');
    expect(pod.spec).toEqual({
      nodeName: 'kwok-node-3',
      readinessGates: sample.spec.readinessGates,
      containers: [{ name: 'main', image: 'app:v1', volumeMounts: [{ name: 'data' }] }],
      volumes: [{ name: 'data' }],
    });
    expect(sample.spec.volumes).toHaveLength(2);
  });
});
