import { matchesLabels, parseLabelSelector } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { buildPod } from '../../src/core/scale/new-pod.ts';
import { cachedAllocatable, nodeCacheScope, pvcCacheScope } from '../../src/reconciler/caches.ts';
import { cloneSet } from './fixtures.ts';

describe('the CloneSet controller cache scopes', () => {
  it('the PVC cache holds every claim the controller creates, and not a claim of another workload', () => {
    const selector = parseLabelSelector(pvcCacheScope.labelSelector ?? '');
    const cs = cloneSet({
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        { metadata: { name: 'logs', labels: { tier: 'x' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ],
    });
    const { pvcs } = buildPod(cs, cs.spec.template, 'cs-rev', 'abcde', {}, 0);
    expect(pvcs).toHaveLength(2);
    for (const claim of pvcs) expect(matchesLabels(selector, claim.metadata?.labels)).toBe(true);
    expect(matchesLabels(selector, { app: 'demo', 'app.kubernetes.io/name': 'statefulset-claim' })).toBe(false);
  });

  it('the node cache keeps the labels scale-in ranks by and the allocatable cpu and memory a resize must fit, and drops the rest of the status', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z' } }, status: { images: [], allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } };
    const cached = nodeCacheScope.transform?.(node);
    expect(cached).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z' } }, status: { allocatable: { cpu: '4', memory: '8Gi' } } });
    expect(cachedAllocatable(cached)).toEqual({ cpu: '4', memory: '8Gi' });
    const bare = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' }, status: { images: [] } };
    expect(nodeCacheScope.transform?.(bare)).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
  });
});
