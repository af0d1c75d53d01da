import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../src/client/types.ts';
import { controllerRef, enqueueControllerOwner, groupOf, keyOf } from '../../src/controller/handlers.ts';
import { splitKey } from '../../src/keys.ts';

const pod = (owners: OwnerReference[] | undefined): KubeObject => ({
  metadata: { name: 'p', namespace: 'ns', ownerReferences: owners },
});

describe('event handlers', () => {
  const toCloneSet = enqueueControllerOwner({ group: 'apps.kruise.io', kind: 'CloneSet' });

  it('maps a pod to its controlling CloneSet only', () => {
    const cs = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid: 'u' };
    expect(toCloneSet(pod([{ ...cs, controller: true }]))).toBe('ns/web');
    expect(toCloneSet(pod([cs]))).toBeUndefined(); // owner but not controller
    expect(toCloneSet(pod([{ ...cs, apiVersion: 'apps/v1', kind: 'ReplicaSet', controller: true }]))).toBeUndefined();
    expect(toCloneSet(pod([{ ...cs, apiVersion: 'other.io/v1', controller: true }]))).toBeUndefined();
    expect(toCloneSet(pod(undefined))).toBeUndefined();
    expect(controllerRef(pod([cs, { ...cs, name: 'x', controller: true }]))?.name).toBe('x');
  });

  it('keyOf and keys round-trip; groups parse', () => {
    expect(keyOf(pod(undefined))).toBe('ns/p');
    expect(keyOf({ metadata: { name: 'node-1' } })).toBe('node-1');
    expect(splitKey('ns/p')).toEqual({ namespace: 'ns', name: 'p' });
    expect(splitKey('node-1')).toEqual({ namespace: undefined, name: 'node-1' });
    expect(() => splitKey('a/b/c')).toThrow();
    expect(groupOf('v1')).toBe('');
    expect(groupOf('apps/v1')).toBe('apps');
  });
});
