// AdmissionReview requests as the apiserver sends them.
import type { AdmissionRequest, Operation } from '../../src/webhooks/admission-review.ts';

export function cloneSetRequest(operation: Operation, object: unknown, oldObject?: unknown): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
    resource: { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets' },
    namespace: 'default',
    name: 'sample',
    operation,
    object: operation === 'DELETE' ? null : object,
    ...(oldObject !== undefined ? { oldObject } : {}),
  };
}

export function ptrRequest(operation: Operation, object: unknown): AdmissionRequest {
  return {
    uid: 'uid-2',
    kind: { group: 'apps.kusionstack.io', version: 'v1alpha1', kind: 'PodTransitionRule' },
    resource: { group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules' },
    namespace: 'default',
    name: 'rule',
    operation,
    object,
  };
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
