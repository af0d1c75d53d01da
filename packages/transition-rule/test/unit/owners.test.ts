import { describe, expect, it } from 'vitest';
import { ownersFromCloneSets, replicasChanged } from '../../src/reconciler/owners.ts';
import type { CloneSetObject } from '../../src/reconciler/resources.ts';

const cloneSet = (name: string, uid: string, replicas?: number): CloneSetObject => ({ metadata: { name, namespace: 'ns', uid }, spec: replicas === undefined ? {} : { replicas } });

describe('ownersFromCloneSets', () => {
  const cache = new Map([['ns/web', cloneSet('web', 'u1', 10)], ['ns/bare', cloneSet('bare', 'u2')]]);
  const lookup = ownersFromCloneSets({ getByKey: (k) => cache.get(k) });
  const ref = (name: string, apiVersion = 'apps.kruise.io/v1alpha1', kind = 'CloneSet') => ({ apiVersion, kind, name, uid: 'x', controller: true });

  it.each([
    ['a cached CloneSet: its UID and replicas', ref('web'), { uid: 'u1', replicas: 10 }],
    ['another apps.kruise.io version names the same object', ref('web', 'apps.kruise.io/v1beta1'), { uid: 'u1', replicas: 10 }],
    ['replicas unset means 1', ref('bare'), { uid: 'u2', replicas: 1 }],
    ['not in the cache', ref('gone'), undefined],
    ['another kind', ref('web', 'apps/v1', 'ReplicaSet'), undefined],
    ['a CloneSet of another group', ref('web', 'apps.example.com/v1'), undefined],
  ])('%s', (_name, r, expected) => {
    expect(lookup('ns', r)).toEqual(expected);
  });
});

describe('replicasChanged', () => {
  const base = cloneSet('web', 'u1', 3);
  it.each<[string, CloneSetObject, boolean]>([
    ['another field (labels) wakes nothing', { ...base, metadata: { ...base.metadata, labels: { x: 'y' } } }, false],
    ['spec.replicas wakes the rules', cloneSet('web', 'u1', 4), true],
    ['a new UID (the CloneSet re-created) wakes the rules', cloneSet('web', 'u9', 3), true],
  ])('%s', (_name, after, changed) => {
    expect(replicasChanged(base, after)).toBe(changed);
  });
});
