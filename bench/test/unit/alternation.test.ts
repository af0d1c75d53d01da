import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alternatingOrder } from '../../src/alternation.ts';

describe('alternatingOrder', () => {
  it.each([
    { variants: ['CloneSet', 'Deployment'], repeats: 1, want: ['CloneSet', 'Deployment'] },
    { variants: ['CloneSet', 'Deployment'], repeats: 3, want: ['CloneSet', 'Deployment', 'Deployment', 'CloneSet', 'CloneSet', 'Deployment'] },
    { variants: ['a', 'b', 'c'], repeats: 2, want: ['a', 'b', 'c', 'c', 'b', 'a'] },
    { variants: ['a'], repeats: 0, want: [] },
  ])('$variants × $repeats', ({ variants, repeats, want }) => {
    expect(alternatingOrder(variants, repeats).map((t) => t.variant)).toEqual(want);
  });

  it('runs every variant once per repeat, and over two repeats each variant sits at every position', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 6 }), (variants, repeats) => {
        const turns = alternatingOrder(variants, repeats);
        expect(turns).toHaveLength(variants.length * repeats);
        for (let r = 0; r < repeats; r++) expect(turns.filter((t) => t.repeat === r).map((t) => t.variant).sort()).toEqual([...variants].sort());
        // Mean position over a forward and a backward repeat is the same for every variant: no variant always goes first.
        if (repeats >= 2) {
          const position = (v: number): number => turns.slice(0, 2 * variants.length).reduce((sum, t, i) => sum + (t.variant === v ? i % variants.length : 0), 0);
          for (const v of variants) expect(position(v)).toBe(variants.length - 1);
        }
      }),
    );
  });
});
