import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CLONESET_REPLICAS, MAX_PODS_TO_DELETE, defaultCloneSet, validateCloneSet, validateScaleReplicas, type CloneSet } from '../../src/index.ts';
import { INSTANCE_ID_SPACE } from '../../src/cloneset/admission-limits.ts';
import { loadCloneSet } from '../fixtures.ts';

const valid = (): CloneSet => defaultCloneSet(loadCloneSet());
const withReplicas = (n: number): CloneSet => {
  const cs = valid();
  cs.spec.replicas = n;
  return cs;
};

describe('the replicas bound', () => {
  it('keeps a random id draw from colliding more than 1% of the time', () => {
    expect(MAX_CLONESET_REPLICAS / INSTANCE_ID_SPACE).toBeLessThan(0.01);
  });

  it('admits the bound and refuses one more, naming spec.replicas', () => {
    expect(validateCloneSet(withReplicas(MAX_CLONESET_REPLICAS))).toEqual([]);
    const errs = validateCloneSet(withReplicas(MAX_CLONESET_REPLICAS + 1));
    expect(errs).toMatchObject([{ field: 'spec.replicas', type: 'Invalid', message: expect.stringMatching(/less than or equal to 100000/) }]);
  });

  it('refuses 2^31-1, which the CRD schema allows', () => {
    expect(validateCloneSet(withReplicas(2 ** 31 - 1)).map((e) => e.field)).toEqual(['spec.replicas']);
  });

  it('lets an object already above the bound scale down, never up', () => {
    const old = withReplicas(MAX_CLONESET_REPLICAS + 10);
    expect(validateCloneSet(withReplicas(MAX_CLONESET_REPLICAS + 5), old)).toEqual([]);
    expect(validateCloneSet(withReplicas(MAX_CLONESET_REPLICAS + 11), old).map((e) => e.field)).toEqual(['spec.replicas']);
  });
});

describe('the podsToDelete bound', () => {
  it('refuses a longer list before looking any name up', () => {
    const cs = valid();
    cs.spec.scaleStrategy = { podsToDelete: Array.from({ length: MAX_PODS_TO_DELETE + 1 }, (_, i) => `p-${i}`) };
    const lookups: string[] = [];
    const errs = validateCloneSet(cs, undefined, { getPod: (n) => (lookups.push(n), undefined) });
    expect(errs).toMatchObject([{ field: 'spec.scaleStrategy.podsToDelete', message: `must have at most ${MAX_PODS_TO_DELETE} items` }]);
    expect(lookups).toEqual([]);
  });
});

describe('validateScaleReplicas (clonesets/scale)', () => {
  it.each([
    [0, undefined, []],
    [3, 1, []],
    [MAX_CLONESET_REPLICAS, 1, []],
    [MAX_CLONESET_REPLICAS + 1, 1, ['spec.replicas']],
    [-1, 1, ['spec.replicas']],
    [1.5, 1, ['spec.replicas']],
    ['3', 1, ['spec.replicas']],
  ])('replicas %s (was %s)', (replicas, old, fields) => {
    expect(validateScaleReplicas(replicas, old).map((e) => e.field)).toEqual(fields);
  });

  it('agrees with validateCloneSet on every integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (n, old) => {
        const viaScale = validateScaleReplicas(n, old).length > 0;
        const viaObject = validateCloneSet(withReplicas(n), withReplicas(old)).some((e) => e.field === 'spec.replicas');
        expect(viaScale).toBe(viaObject);
      }),
    );
  });
});
