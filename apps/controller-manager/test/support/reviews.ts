// AdmissionReview requests as the apiserver sends them.
import type { AdmissionRequest, Operation } from '../../src/webhooks/admission-review.ts';

interface Target {
  uid: string;
  group: string;
  version: string;
  kind: string;
  resource: string;
  name: string;
}

function request(t: Target, operation: Operation, object: unknown, oldObject?: unknown, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: t.uid,
    kind: { group: t.group, version: t.version, kind: t.kind },
    resource: { group: t.group, version: t.version, resource: t.resource },
    namespace: 'default',
    name: t.name,
    operation,
    object: operation === 'DELETE' ? null : object,
    oldObject,
    ...extra,
  };
}

export function cloneSetRequest(operation: Operation, object: unknown, oldObject?: unknown): AdmissionRequest {
  return request({ uid: 'uid-1', group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet', resource: 'clonesets', name: 'sample' }, operation, object, oldObject);
}

export function ptrRequest(operation: Operation, object: unknown): AdmissionRequest {
  return request({ uid: 'uid-2', group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'PodTransitionRule', resource: 'podtransitionrules', name: 'rule' }, operation, object);
}

export function podRequest(operation: Operation, object: unknown, oldObject?: unknown, extra: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return request({ uid: 'uid-3', group: '', version: 'v1', kind: 'Pod', resource: 'pods', name: 'p' }, operation, object, oldObject, extra);
}

export function sampleCloneSet(): Record<string, unknown> {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: 'sample', namespace: 'default', uid: 'cs-uid' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'sample' } },
      template: { metadata: { labels: { app: 'sample' } }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } },
    },
  };
}

/** kubectl scale of CloneSet "sample": an UPDATE of clonesets/scale carrying an autoscaling/v1 Scale. */
export function scaleRequest(replicas: unknown, oldReplicas: number): AdmissionRequest {
  const scale = (n: unknown): Record<string, unknown> => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: 'sample', namespace: 'default' },
    spec: { replicas: n },
    status: { replicas: oldReplicas },
  });
  return {
    uid: 'uid-4',
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    resource: { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets' },
    subResource: 'scale',
    namespace: 'default',
    name: 'sample',
    operation: 'UPDATE',
    object: scale(replicas),
    oldObject: scale(oldReplicas),
  };
}
