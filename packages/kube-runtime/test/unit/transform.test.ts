import { describe, expect, it } from 'vitest';
import { keepIdentityAndLabels, stripManagedFields } from '../../src/informer/transform.ts';

const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'kwok-node-0',
    uid: 'u1',
    resourceVersion: '42',
    labels: { 'topology.kubernetes.io/zone': 'z1' },
    annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    managedFields: [{ manager: 'kwok' }],
  },
  spec: { podCIDR: '10.0.0.0/24' },
  status: { images: [{ names: ['nginx'], sizeBytes: 1 }], conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('cache transforms', () => {
  it('stripManagedFields drops managedFields only', () => {
    const { managedFields: _gone, ...metadata } = node.metadata;
    expect(stripManagedFields(node)).toEqual({ ...node, metadata });
  });

  it('keepIdentityAndLabels keeps what names the object and its labels, nothing else', () => {
    expect(keepIdentityAndLabels(node)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'kwok-node-0', uid: 'u1', resourceVersion: '42', labels: { 'topology.kubernetes.io/zone': 'z1' } },
    });
  });

  it('keepIdentityAndLabels adds no field the object lacks', () => {
    expect(keepIdentityAndLabels({ metadata: { name: 'n', namespace: 'ns' } })).toStrictEqual({ metadata: { name: 'n', namespace: 'ns' } });
  });
});
