import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SubtreePool } from '../../src/informer/subtree-pool.ts';

describe('SubtreePool', () => {
  it('answers the first instance for a key, with one reference; another key gets another reference', () => {
    const pool = new SubtreePool();
    const first = { a: 1 };
    const shared = pool.share('{1:a=n1;}', first);
    expect(pool.share('{1:a=n1;}', { a: 1 })).toEqual({ value: first, ref: shared?.ref });
    expect(pool.share('{1:a=n2;}', { a: 2 })?.ref).not.toBe(shared?.ref);
  });

  it('stays bounded under churn and never hands out a reference twice, even for a key that fell out and came back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.array(fc.string({ maxLength: 3 }), { maxLength: 300 }), (maxEntries, keys) => {
        const pool = new SubtreePool({ maxEntries });
        const refOwner = new Map<string, string>();
        for (const key of keys) {
          const ref = pool.share(key, {})!.ref;
          if ((refOwner.get(ref) ?? key) !== key) return false;
          refOwner.set(ref, key);
          if (pool.size > 2 * maxEntries) return false;
        }
        return true;
      }),
    );
  });

  it('does not pool a subtree whose key is too long', () => {
    const pool = new SubtreePool({ maxKeyLength: 4 });
    expect(pool.share('{abcd}', {})).toBeUndefined();
    expect(pool.size).toBe(0);
  });
});
