import { describe, expect, it } from 'vitest';
import { selectorMatcher, selectorMatches } from '../../src/core/selector.ts';
import type { Selector } from '../../src/core/types.ts';

const selectors: [string, Selector | undefined][] = [
  ['nil', undefined],
  ['empty', {}],
  ['matchLabels', { matchLabels: { app: 'demo' } }],
  ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }],
  ['DoesNotExist', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }],
  ['invalid key', { matchLabels: { 'bad key!': 'x' } }],
  // An operator admission would have refused, as a cache could still hold it.
  ['invalid operator', { matchExpressions: [{ key: 'tier', operator: 'Near' as 'In', values: ['a'] }] }],
];
const labelSets: (Record<string, string> | undefined)[] = [undefined, {}, { app: 'demo' }, { app: 'demo', tier: 'a' }, { tier: 'c' }, { 'bad key!': 'x' }];

describe('selectorMatcher: selectorMatches validated once', () => {
  it.each(selectors)('%s selector: the same answer for every label set, never a throw', (_name, selector) => {
    const matches = selectorMatcher(selector);
    for (const labels of labelSets) expect(matches(labels)).toBe(selectorMatches(selector, labels));
  });

  it('an invalid selector matches nothing', () => {
    expect(labelSets.some((l) => selectorMatcher({ matchLabels: { 'bad key!': 'x' } })(l))).toBe(false);
  });
});
