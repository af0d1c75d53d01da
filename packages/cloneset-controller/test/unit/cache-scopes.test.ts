import { matchesLabels, parseLabelSelector } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { buildPod } from '../../src/core/scale/new-pod.ts';
import { nodeCacheScope, pvcCacheScope } from '../../src/reconciler/caches.ts';
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

  it('the node cache keeps the labels scale-in ranks by, and drops the status', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z' } }, status: { images: [] } };
    expect(nodeCacheScope.transform?.(node)).toEqual({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z' } } });
  });
});
