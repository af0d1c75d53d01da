import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TransitionRule } from '@cloneset-suite/api-types';
import { missingReplicas } from '../../src/core/missing-replicas.ts';
import { planRound } from '../../src/core/round.ts';
import type { OwnerLookup, OwnerReference, OwnerReplicas } from '../../src/core/types.ts';
import { pod, ptr, type TestPod } from './fixtures.ts';

const ref = (name: string, uid: string, controller = true): OwnerReference => ({ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name, uid, controller });
const owned = (name: string, owner: OwnerReference, opts: Parameters<typeof pod>[1] = {}): TestPod & { metadata: { ownerReferences: OwnerReference[] } } => {
  const p = pod(name, opts);
  return { ...p, metadata: { ...p.metadata, ownerReferences: [owner] } };
};
const lookupOf = (owners: Record<string, OwnerReplicas>): OwnerLookup => (_ns, r) => owners[r.name];

describe('missingReplicas', () => {
  const web = ref('web', 'uid-web');
  const ten = lookupOf({ web: { uid: 'uid-web', replicas: 10 } });
  const nine = Array.from({ length: 9 }, (_, i) => owned(`web-${i}`, web));

  it.each<[string, TestPod[], TestPod[], OwnerLookup, number]>([
    ['9 of 10 replicas present: 1 missing', nine, nine, ten, 1],
    ['all present', [...nine, owned('web-9', web)], [...nine, owned('web-9', web)], ten, 0],
    ['more pods than replicas (scaling in) is not negative', nine, nine, lookupOf({ web: { uid: 'uid-web', replicas: 5 } }), 0],
    ['an owner re-created under the same name (UID differs) is not the pods\' owner', nine, nine, lookupOf({ web: { uid: 'uid-new', replicas: 10 } }), 0],
    ['an owner the cache does not know (gone, or not a CloneSet)', nine, nine, lookupOf({}), 0],
    ['pods with no controller reference have no owner', [pod('a')], [pod('a')], ten, 0],
    ['a non-controller reference is not the owner', [owned('a', ref('web', 'uid-web', false))], [owned('a', ref('web', 'uid-web', false))], ten, 0],
    // The rule selects 3 of the 9 pods: the owner's pods are counted in the whole namespace.
    ['the owner\'s unselected pods count as present', nine.slice(0, 3), nine, ten, 1],
  ])('%s', (_name, selected, all, lookup, expected) => {
    expect(missingReplicas('ns', selected, all, lookup)).toBe(expected);
  });

  it('sums distinct owners once each', () => {
    const db = ref('db', 'uid-db');
    const pods = [...nine, owned('db-0', db)];
    expect(missingReplicas('ns', pods, pods, lookupOf({ web: { uid: 'uid-web', replicas: 10 }, db: { uid: 'uid-db', replicas: 3 } }))).toBe(3);
  });

  it('property: equals replicas minus pods present, floored at 0, for one owner', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 30 }), (replicas, present) => {
        const pods = Array.from({ length: present }, (_, i) => owned(`p${i}`, web));
        expect(missingReplicas('ns', pods, pods, lookupOf({ web: { uid: 'uid-web', replicas } }))).toBe(Math.max(0, replicas - present));
      }),
    );
  });
});

describe('availablePolicy with the owner\'s missing replicas', () => {
  const rule: TransitionRule = { name: 'avail', availablePolicy: { maxUnavailableValue: 1 } };
  const web = ref('web', 'uid-web');
  const pods = Array.from({ length: 9 }, (_, i) => owned(`web-${i}`, web, i === 0 ? { stage: 'PreCheck' } : {}));
  const evaluate = (owners?: OwnerLookup) => {
    const plan = planRound({ ptr: ptr([rule]), pods, runtime: () => ({ polls: new Map() }), nowMs: 0, newTraceId: () => 'T', owners });
    if (plan.kind !== 'evaluate') throw new Error('expected an evaluation');
    return plan.status.details;
  };

  it('9 of 10 replicas present with maxUnavailable 1 approves nobody, and says why', () => {
    expect(evaluate(lookupOf({ web: { uid: 'uid-web', replicas: 10 } }))).toEqual([
      { name: 'web-0', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'avail', reason: '[avail] blocked by max unavailable policy: [max unavailable]=1/9, [current unavailable]=0/9, [missing replicas]=1' }] },
    ]);
  });

  it('with every replica present the pod is approved', () => {
    expect(evaluate(lookupOf({ web: { uid: 'uid-web', replicas: 9 } }))?.[0]?.passed).toBe(true);
    expect(evaluate()?.[0]?.passed).toBe(true);
  });
});
