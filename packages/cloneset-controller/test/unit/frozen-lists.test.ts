import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findIn, someIn } from '../../src/core/frozen-lists.ts';

const lists = fc.array(fc.record({ id: fc.nat(20), tag: fc.constantFrom('a', 'b', 'c') }), { maxLength: 12 });
const frozen = <T extends object>(items: T[]): readonly T[] => Object.freeze(items.map((i) => Object.freeze(i)));

describe('findIn and someIn answer as find and some do, on frozen lists too', () => {
  it('findIn returns the first match (the same object), or undefined', () => {
    fc.assert(
      fc.property(lists, fc.nat(20), fc.boolean(), (items, id, freeze) => {
        const list = freeze ? frozen(items) : items;
        expect(findIn(list, (i) => i.id === id)).toBe(list.find((i) => i.id === id));
      }),
    );
  });

  it('someIn is true exactly when some item matches', () => {
    fc.assert(
      fc.property(lists, fc.constantFrom('a', 'b', 'c'), fc.boolean(), (items, tag, freeze) => {
        const list = freeze ? frozen(items) : items;
        expect(someIn(list, (i) => i.tag === tag)).toBe(list.some((i) => i.tag === tag));
      }),
    );
  });

  it('an absent list has no match', () => {
    expect(findIn(undefined, () => true)).toBeUndefined();
    expect(someIn(undefined, () => true)).toBe(false);
  });
});
