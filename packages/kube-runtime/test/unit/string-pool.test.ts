import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringPool } from '../../src/informer/string-pool.ts';

describe('StringPool', () => {
  it('holds one entry per distinct value and answers it for every equal string', () => {
    const pool = new StringPool();
    const image = 'registry.example/app:v1';
    expect(pool.intern(image)).toBe(image);
    expect(pool.intern(['registry.example/', 'app:v1'].join(''))).toBe(image);
    expect(pool.size).toBe(1);
    expect(pool.has(image)).toBe(true);
  });

  it('stays bounded however many distinct values go through it (pod churn)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 400 }), (maxEntries, values) => {
        const pool = new StringPool({ maxEntries });
        for (const v of values) {
          pool.intern(v);
          if (pool.size > 2 * maxEntries) return false;
        }
        return true;
      }),
    );
    const pool = new StringPool({ maxEntries: 100 });
    for (let i = 0; i < 100_000; i++) pool.intern(`uid-${i}`);
    expect(pool.size).toBeLessThanOrEqual(200);
    expect(pool.has('uid-0')).toBe(false);
  });

  it('keeps a value that keeps coming back while one-off values churn through', () => {
    const pool = new StringPool({ maxEntries: 100 });
    for (let i = 0; i < 10_000; i++) {
      pool.intern(`timestamp-${i}`);
      if (i % 50 === 0) pool.intern('registry.example/app:v1');
    }
    expect(pool.has('registry.example/app:v1')).toBe(true);
  });

  it('gives each pooled string a reference of its own, never handed out again even after the string fell out', () => {
    const pool = new StringPool({ maxEntries: 1 });
    const refs = ['a', 'b', 'c', 'd', 'a'].map((s) => pool.share(s)?.ref);
    expect(new Set(refs).size).toBe(5);
    expect(pool.share('d')?.ref).toBe(refs[3]);
  });

  it('returns strings longer than maxLength as they are, without pooling them', () => {
    const pool = new StringPool({ maxLength: 8 });
    const long = 'x'.repeat(9);
    expect(pool.intern(long)).toBe(long);
    expect(pool.share(long)).toBeUndefined();
    expect(pool.has(long)).toBe(false);
    expect(pool.size).toBe(0);
  });
});
