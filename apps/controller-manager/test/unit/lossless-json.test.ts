import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/flags.ts';
import { keepUnsafeIntegers } from '../../src/server/lossless-json.ts';
import { readConversionReview } from '../../src/webhooks/conversion-review.ts';
import { servedCloneSet } from '../support/served-cloneset.ts';

const parsedBoth = (text: string): { parsed: unknown; kept: unknown } => {
  const parsed: unknown = JSON.parse(text);
  return { parsed, kept: keepUnsafeIntegers(text, parsed) };
};

describe('keepUnsafeIntegers', () => {
  it.each([
    ['small numbers', '{"a":1,"b":[2.5,-3]}'],
    ['a 16-digit id inside a string', '{"uid":"1234567890123456789"}'],
    ['the largest safe integer', '{"n":9007199254740991}'],
    ['a float with many digits', '{"f":0.1000000000000000055511151231257827}'],
  ])('keeps the native parse for %s', (_name, text) => {
    const { parsed, kept } = parsedBoth(text);
    expect(kept).toBe(parsed);
  });

  it('parses again, keeping the text, when an integer is out of the safe range', () => {
    const text = '{"spec":{"runAsUser":9007199254740993,"small":1}}';
    const { parsed, kept } = parsedBoth(text);
    expect(kept).not.toBe(parsed);
    expect(JSON.stringify(kept)).toBe(text);
  });

  it('writes back every integer as it was sent', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), (ints) => {
        const text = `{"v":[${ints.join(',')}]}`;
        expect(JSON.stringify(parsedBoth(text).kept)).toBe(text);
      }),
    );
  });
});

describe('the default conversion body limit', () => {
  it('takes a page of 500 CloneSets of a production service as served (the apiserver converts a list page in one review)', () => {
    const objects = Array.from({ length: 500 }, (_, i) => servedCloneSet(`checkout-service-api-${i}`));
    const page = JSON.stringify({ kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid: 'u', desiredAPIVersion: 'apps.kruise.io/v1beta1', objects } });
    // 6.6 MiB, the figure the README and the flag's help state.
    expect(page.length / 1024 / 1024).toBeCloseTo(6.6, 1);
    expect(page.length).toBeLessThan(defaultConfig().webhookConversionMaxBodyBytes);
    expect(readConversionReview(page).objects).toHaveLength(500);
  });
});
