import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REASON_BYTES, capText, stableReason, stripControlCharacters, utf8Bytes } from '../../src/core/reason-text.ts';

describe('capText', () => {
  it.each([
    ['short text is kept', 'ok', 10, 'ok'],
    ['exactly the cap is kept', 'x'.repeat(10), 10, 'x'.repeat(10)],
    ['longer text is cut and marked', 'x'.repeat(100), 40, `${'x'.repeat(20)}... [cut, 100 bytes]`],
    ['a character is never split', 'é'.repeat(30), 40, `${'é'.repeat(10)}... [cut, 60 bytes]`],
  ])('%s', (_name, text, cap, expected) => {
    expect(capText(text, cap)).toBe(expected);
  });

  it('a 1 MiB message becomes at most 1 KiB', () => {
    const out = capText('m'.repeat(1024 * 1024));
    expect(utf8Bytes(out)).toBeLessThanOrEqual(MAX_REASON_BYTES);
    expect(out).toMatch(/\.\.\. \[cut, 1048576 bytes\]$/);
  });

  it('property: never longer than the cap, identity when it fits, otherwise a prefix plus the marker', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 24, max: 300 }), (text, cap) => {
        const out = capText(text, cap);
        expect(utf8Bytes(out)).toBeLessThanOrEqual(cap);
        if (utf8Bytes(text) <= cap) expect(out).toBe(text);
        else {
          const head = out.slice(0, out.lastIndexOf('... [cut, '));
          expect(text.startsWith(head)).toBe(true);
          expect(out.endsWith(`... [cut, ${utf8Bytes(text)} bytes]`)).toBe(true);
          // Well-formed UTF-16: no lone surrogate from a cut character.
          expect(out.isWellFormed()).toBe(true);
        }
        expect(capText(out, cap)).toBe(out);
      }),
    );
  });
});

describe('stripControlCharacters', () => {
  it('replaces C0, DEL and C1 controls with spaces and keeps the rest', () => {
    expect(stripControlCharacters('a\u0000b\r\nc\u001b[31md\u007fe\u0085f ü€')).toBe('a b  c [31md e f ü€');
  });
});

describe('stableReason', () => {
  const prev = 'Webhook check ns/p/r rejected, traceId 1111-aa, taskId , msg: busy';
  it.each([
    ['no previous reason', undefined, 'rejected, traceId NEW', 'NEW', 'rejected, traceId NEW'],
    ['only the traceId changed: the previous text stays', prev, prev.replace('1111-aa', '2222-bb'), '2222-bb', prev],
    ['the answer changed too: the new text', prev, prev.replace('1111-aa', '2222-bb').replace('busy', 'full'), '2222-bb', prev.replace('1111-aa', '2222-bb').replace('busy', 'full')],
    ['the id echoed in the message must repeat the same earlier id', 'traceId A, msg: request A failed', 'traceId B, msg: request B failed', 'B', 'traceId A, msg: request A failed'],
    ['two different earlier ids are not the same answer', 'traceId A, msg: request C failed', 'traceId B, msg: request B failed', 'B', 'traceId B, msg: request B failed'],
    ['a reason without the id is taken as is', prev, 'waiting for the next webhook round', 'X', 'waiting for the next webhook round'],
    ['regex characters in the text are literal', 'a.b (x) traceId Q [y]', 'a.b (x) traceId R [y]', 'R', 'a.b (x) traceId Q [y]'],
  ])('%s', (_name, previous, next, traceId, expected) => {
    expect(stableReason(previous, next, traceId)).toBe(expected);
  });

  it('property: returns one of the two; the previous only when it is the next with the id replaced', () => {
    // Ids that cannot occur in the fixed text around them (as a UUID cannot).
    const token = fc.stringMatching(/^#[0-9a-f]{1,12}$/);
    const text = fc.string({ maxLength: 30 }).map((s) => s.replace(/\s/g, '_'));
    fc.assert(
      fc.property(text, text, token, token, fc.boolean(), (a, b, oldId, newId, sameRest) => {
        const next = `${a} traceId ${newId}, ${b}`;
        const previous = sameRest ? `${a} traceId ${oldId}, ${b}` : `${a} traceId ${oldId}, ${b}!`;
        const out = stableReason(previous, next, newId);
        expect([previous, next]).toContain(out);
        if (!sameRest && !next.includes(`${newId}, ${b}!`)) expect(out).toBe(next);
        if (sameRest && !a.includes(newId) && !b.includes(newId)) expect(out).toBe(previous);
      }),
    );
  });
});
