import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidLabelSelectorError, compileLabelSelector, labelSelectorMatches, labelSelectorToString, type LabelSelector } from '../../src/index.ts';
import { isEmptyLabelSelector, validateLabelSelector } from '../../src/selector.ts';

describe('labelSelectorMatches', () => {
  const labels = { app: 'sample', tier: 'a', env: 'prod' };
  it.each<[string, LabelSelector | undefined | null, boolean]>([
    ['nil matches nothing', undefined, false],
    ['null matches nothing', null, false],
    ['{} matches everything', {}, true],
    ['matchLabels equal', { matchLabels: { app: 'sample' } }, true],
    ['matchLabels differ', { matchLabels: { app: 'other' } }, false],
    ['matchLabels missing key', { matchLabels: { zone: 'x' } }, false],
    ['In hit', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, true],
    ['In miss', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['b'] }] }, false],
    ['In on missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn hit', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, false],
    ['NotIn miss', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['b'] }] }, true],
    ['NotIn on missing key matches', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'env', operator: 'Exists' }] }, true],
    ['Exists missing', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist present', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, false],
    ['all ANDed', { matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }, false],
  ])('%s', (_name, selector, expected) => {
    expect(labelSelectorMatches(selector, labels)).toBe(expected);
  });

  it('treats missing labels as an empty map', () => {
    expect(labelSelectorMatches({}, undefined)).toBe(true);
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, undefined)).toBe(true);
  });

  it('does not see inherited properties as labels', () => {
    expect(labelSelectorMatches({ matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {})).toBe(false);
  });

  it.each<[string, LabelSelector]>([
    ['In without values', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }],
    ['Exists with values', { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }],
    ['unknown operator', { matchExpressions: [{ key: 'a', operator: 'Gt' as 'In', values: ['1'] }] }],
    ['bad key', { matchLabels: { 'bad key': 'x' } }],
    ['bad value', { matchLabels: { a: 'x y' } }],
  ])('throws on an invalid selector: %s', (_name, selector) => {
    expect(() => labelSelectorMatches(selector, {})).toThrow(InvalidLabelSelectorError);
    expect(validateLabelSelector(selector).length).toBeGreaterThan(0);
  });
});

describe('labelSelectorToString', () => {
  it.each<[LabelSelector, string]>([
    [{}, ''],
    [{ matchLabels: { app: 'sample' } }, 'app=sample'],
    [{ matchLabels: { tier: 'a', app: 'sample' } }, 'app=sample,tier=a'],
    [{ matchLabels: { app: 'sample' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, 'app=sample,tier in (a,b)'],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] }, 'tier notin (x)'],
    [{ matchExpressions: [{ key: 'b', operator: 'Exists' }, { key: 'a', operator: 'DoesNotExist' }] }, '!a,b'],
    [{ matchLabels: { k: 'v' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] }, 'k=v,k'],
    [{ matchLabels: { 'apps.kruise.io/x': 'y', app: 'z' } }, 'app=z,apps.kruise.io/x=y'],
  ])('%j prints as %j', (selector, text) => {
    expect(labelSelectorToString(selector)).toBe(text);
  });

  it('throws on an invalid selector', () => {
    expect(() => labelSelectorToString({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toThrow(InvalidLabelSelectorError);
  });
});

describe('isEmptyLabelSelector', () => {
  it.each<[LabelSelector, boolean]>([
    [{}, true],
    [{ matchLabels: {}, matchExpressions: [] }, true],
    [{ matchLabels: { a: 'b' } }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, false],
  ])('%j -> %s', (selector, expected) => {
    expect(isEmptyLabelSelector(selector)).toBe(expected);
  });
});

// Reference model: parse the canonical string back with a small parser of the Kubernetes
// selector syntax, and evaluate that. It checks the matcher and the printer against each other.
type Req = { key: string; op: '=' | 'in' | 'notin' | 'exists' | '!'; values: string[] };

function parseSelectorString(text: string): Req[] {
  if (text === '') return [];
  const reqs: Req[] = [];
  let rest = text;
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = /^([^,=!\s()]+) (in|notin) \(([^)]*)\)(,|$)/.exec(rest))) {
      reqs.push({ key: m[1]!, op: m[2] as 'in' | 'notin', values: m[3]!.split(',') });
    } else if ((m = /^([^,=!\s()]+)=([^,]*)(,|$)/.exec(rest))) {
      reqs.push({ key: m[1]!, op: '=', values: [m[2]!] });
    } else if ((m = /^!([^,=!\s()]+)(,|$)/.exec(rest))) {
      reqs.push({ key: m[1]!, op: '!', values: [] });
    } else if ((m = /^([^,=!\s()]+)(,|$)/.exec(rest))) {
      reqs.push({ key: m[1]!, op: 'exists', values: [] });
    } else {
      throw new Error(`cannot parse ${rest}`);
    }
    rest = rest.slice(m[0].length);
  }
  return reqs;
}

function referenceMatches(reqs: Req[], labels: Record<string, string>): boolean {
  const keys = new Map(Object.entries(labels));
  return reqs.every((r) => {
    const v = keys.get(r.key);
    switch (r.op) {
      case '=':
        return v === r.values[0];
      case 'in':
        return v !== undefined && r.values.some((x) => x === v);
      case 'notin':
        return v === undefined || r.values.every((x) => x !== v);
      case 'exists':
        return v !== undefined;
      case '!':
        return v === undefined;
    }
  });
}

const keyArb = fc.constantFrom('app', 'tier', 'env', 'zone', 'apps.kruise.io/x');
const valueArb = fc.constantFrom('a', 'b', 'c', 'sample', '');
const nonEmptyValueArb = fc.constantFrom('a', 'b', 'c', 'sample');
const exprArb = fc.oneof(
  fc.record({ key: keyArb, operator: fc.constantFrom('In' as const, 'NotIn' as const), values: fc.uniqueArray(nonEmptyValueArb, { minLength: 1, maxLength: 3 }) }),
  fc.record({ key: keyArb, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
);
const selectorArb: fc.Arbitrary<LabelSelector> = fc.record(
  { matchLabels: fc.dictionary(keyArb, valueArb, { maxKeys: 3 }), matchExpressions: fc.array(exprArb, { maxLength: 4 }) },
  { requiredKeys: [] },
);
const labelsArb = fc.dictionary(keyArb, valueArb, { maxKeys: 5 });

describe('label selectors against a reference model (properties)', () => {
  it('match as the parsed canonical string does', () => {
    fc.assert(
      fc.property(selectorArb, labelsArb, (selector, labels) => {
        const reqs = parseSelectorString(labelSelectorToString(selector));
        expect(labelSelectorMatches(selector, labels)).toBe(referenceMatches(reqs, labels));
      }),
    );
  });

  it('print the same string whatever the order of requirements and labels', () => {
    fc.assert(
      fc.property(selectorArb, fc.integer(), (selector, seed) => {
        const shuffled: LabelSelector = {
          matchLabels: Object.fromEntries(Object.entries(selector.matchLabels ?? {}).reverse()),
          matchExpressions: [...(selector.matchExpressions ?? [])]
            .map((e) => ({ ...e, values: e.values ? [...e.values].reverse() : undefined }))
            .sort((a, b) => (a.key === b.key ? 0 : (seed & 1) === 0 ? (a.key < b.key ? -1 : 1) : a.key < b.key ? 1 : -1)),
        };
        // Reordering expressions of the same key can change their relative order (stable sort).
        const sameKeyTwice = new Set((selector.matchExpressions ?? []).map((e) => e.key)).size !== (selector.matchExpressions ?? []).length;
        fc.pre(!sameKeyTwice);
        expect(labelSelectorToString(shuffled)).toBe(labelSelectorToString(selector));
      }),
    );
  });

  it('compile once and match like the one-shot form', () => {
    fc.assert(
      fc.property(selectorArb, fc.array(labelsArb, { maxLength: 5 }), (selector, many) => {
        const match = compileLabelSelector(selector);
        for (const labels of many) expect(match(labels)).toBe(labelSelectorMatches(selector, labels));
      }),
    );
  });

  it('an empty selector matches every label set', () => {
    fc.assert(fc.property(labelsArb, (labels) => labelSelectorMatches({}, labels)));
  });
});
