// The CRD (what the apiserver enforces) and the validation functions (what the webhook enforces)
// must agree on int-or-string values: the CRD's pattern + minimum accept a value exactly when the
// parser does and the value is not negative.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tryParseIntOrPercent, type IntOrString } from '../../src/index.ts';
import { DECIMAL_PERCENT_PATTERN, INT_PERCENT_PATTERN } from '../../src/cloneset/schema.ts';
import { NON_ZERO_PERCENT_PATTERN, PERCENT_PATTERN } from '../../src/transition-rule/schema.ts';

function schemaAccepts(value: IntOrString, pattern: string, minimum: number): boolean {
  return typeof value === 'number' ? Number.isInteger(value) && value >= minimum : new RegExp(pattern).test(value);
}

const intOrStringArb: fc.Arbitrary<IntOrString> = fc.oneof(
  fc.integer({ min: -5, max: 500 }),
  fc.stringMatching(/^[+-]?[0-9]{1,3}(\.[0-9]{0,2})?%?$/),
  fc.constantFrom('', '%', 'abc', '1e2%', ' 5%', '5 %', '.5%', '00%', '007%', '-0%', '-0.0%', '-0'),
);

describe('CRD patterns agree with the parsers (property)', () => {
  it('CloneSet maxSurge/maxUnavailable: integer percentages', () => {
    fc.assert(
      fc.property(intOrStringArb, (v) => {
        const parsed = tryParseIntOrPercent(v);
        expect(schemaAccepts(v, INT_PERCENT_PATTERN, 0)).toBe(parsed !== undefined && parsed.value >= 0);
      }),
    );
  });

  it('CloneSet partition: decimal percentages', () => {
    fc.assert(
      fc.property(intOrStringArb, (v) => {
        const parsed = tryParseIntOrPercent(v, { decimalPercent: true });
        expect(schemaAccepts(v, DECIMAL_PERCENT_PATTERN, 0)).toBe(parsed !== undefined && parsed.value >= 0);
      }),
    );
  });

  it('PodTransitionRule maxUnavailableValue: non-zero; minAvailableValue: zero allowed', () => {
    fc.assert(
      fc.property(intOrStringArb, (v) => {
        const parsed = tryParseIntOrPercent(v);
        const valid = parsed !== undefined;
        expect(schemaAccepts(v, NON_ZERO_PERCENT_PATTERN, 1)).toBe(valid && parsed.value > 0);
        expect(schemaAccepts(v, PERCENT_PATTERN, 0)).toBe(valid && parsed.value >= 0);
      }),
    );
  });
});
