import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJsonPatch, escapePointer } from '../../src/webhooks/json-patch.ts';
import { applyJsonPatch } from '../support/apply-patch.ts';

describe('createJsonPatch', () => {
  it('is empty for equal documents', () => {
    expect(createJsonPatch({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toEqual([]);
  });

  it('adds, replaces and removes with escaped keys', () => {
    const ops = createJsonPatch({ metadata: { labels: { 'a/b': 'x', gone: 'y' } }, n: 1 }, { metadata: { labels: { 'a/b': 'z', 'c~d': 'w' } }, n: 2 });
    expect(ops).toEqual([
      { op: 'remove', path: '/metadata/labels/gone' },
      { op: 'replace', path: '/metadata/labels/a~1b', value: 'z' },
      { op: 'add', path: '/metadata/labels/c~0d', value: 'w' },
      { op: 'replace', path: '/n', value: 2 },
    ]);
    expect(escapePointer('~/')).toBe('~0~1');
  });

  it('escapes a reference token as RFC 6901 says, whether or not it holds ~ or /', () => {
    const token = fc.string({ unit: fc.constantFrom('~', '/', '0', '1', 'a', '.', '-') });
    fc.assert(fc.property(token, (t) => escapePointer(t) === t.replaceAll('~', '~0').replaceAll('/', '~1')));
  });

  it('replaces arrays whose length changed', () => {
    expect(createJsonPatch({ a: [1, 2] }, { a: [1, 2, 3] })).toEqual([{ op: 'replace', path: '/a', value: [1, 2, 3] }]);
  });

  it('turns any JSON value into any other', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const from = { root: a };
        const to = { root: b };
        expect(JSON.parse(JSON.stringify(applyJsonPatch(from, createJsonPatch(from, to))))).toEqual(JSON.parse(JSON.stringify(to)));
      }),
      { numRuns: 300 },
    );
  });
});
