import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, stringifyBody } from '../../src/client/raw-json.ts';

describe('RawJson request bodies', () => {
  it('writes fragments verbatim, key order and escapes included', () => {
    const data = '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"10":"\\u003cb\\u003e","9":"x"}}}}}';
    const body = stringifyBody({ kind: 'ControllerRevision', data: new RawJson(data), revision: 1 });
    expect(body).toBe(`{"kind":"ControllerRevision","data":${data},"revision":1}`);
  });

  it('is JSON.stringify when there is no fragment, even for strings that look like the marker', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, s) => {
        const input = { value, s, nul: `\u0000raw-json-${s}-0` };
        return stringifyBody(input) === JSON.stringify(input);
      }),
    );
  });

  it('places several fragments, nested in arrays too', () => {
    const body = stringifyBody({ a: [new RawJson('1.0'), { b: new RawJson('"\\u0026"') }] });
    expect(body).toBe('{"a":[1.0,{"b":"\\u0026"}]}');
  });

  it('refuses a fragment that is not JSON', () => {
    expect(() => new RawJson('{')).toThrow();
  });
});
