import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIntOrPercent, resolveCloneSetKnobs, resolvePartition, tryParseIntOrPercent } from '../../src/index.ts';
import { IntOrStringError, UNLIMITED, scaledValue } from '../../src/intstr.ts';

describe('parseIntOrPercent', () => {
  it.each([
    [5, {}, { kind: 'int', value: 5 }],
    [0, {}, { kind: 'int', value: 0 }],
    ['25%', {}, { kind: 'percent', value: 25 }],
    ['0%', {}, { kind: 'percent', value: 0 }],
    ['12.5%', { decimalPercent: true }, { kind: 'percent', value: 12.5 }],
    ['99.5%', { decimalPercent: true }, { kind: 'percent', value: 99.5 }],
    ['100%', { decimalPercent: true }, { kind: 'percent', value: 100 }],
  ] as const)('accepts %j (%j)', (input, options, expected) => {
    expect(parseIntOrPercent(input, options)).toMatchObject(expected);
  });

  it.each([
    ['abc', {}],
    ['5', {}],
    ['%', {}],
    ['', {}],
    ['12.5%', {}],
    ['1e2%', { decimalPercent: true }],
    ['.5%', { decimalPercent: true }],
    [' 5%', {}],
    ['+5%', {}],
    ['-0%', {}],
    ['-0.0%', { decimalPercent: true }],
    [1.5, {}],
    [Number.NaN, {}],
  ] as const)('rejects %j (%j)', (input, options) => {
    expect(() => parseIntOrPercent(input, options)).toThrow(IntOrStringError);
    expect(tryParseIntOrPercent(input, options)).toBeUndefined();
  });
});

describe('scaledValue', () => {
  it.each([
    ['20%', 10, 'up', 2],
    ['20%', 11, 'up', 3],
    ['20%', 11, 'down', 2],
    ['30%', 5, 'up', 2],
    ['30%', 5, 'down', 1],
    ['40%', 5, 'down', 2],
    ['99.5%', 200, 'up', 199],
    ['99.5%', 200, 'down', 199],
    ['0.5%', 10, 'up', 1],
    ['0.5%', 10, 'down', 0],
    ['0%', 7, 'up', 0],
    [3, 100, 'down', 3],
    ['50%', 0, 'up', 0],
  ] as const)('%j of %i rounded %s is %i', (value, total, rounding, expected) => {
    expect(scaledValue(value, total, rounding)).toBe(expected);
  });

  it('throws on a value that is neither int nor percent', () => {
    expect(() => scaledValue('abc', 5, 'up')).toThrow(IntOrStringError);
  });

  it('rounds up and down to neighbours around the exact value (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 100_000 }), (whole, tenths, total) => {
        const text = `${whole}.${String(tenths).padStart(2, '0')}%`;
        const up = scaledValue(text, total, 'up');
        const down = scaledValue(text, total, 'down');
        // exact value = (whole*100 + tenths) * total / 10000
        const numerator = (whole * 100 + tenths) * total;
        expect(down).toBe(Math.floor(numerator / 10_000));
        expect(up - down).toBe(numerator % 10_000 === 0 ? 0 : 1);
      }),
    );
  });
});

describe('resolvePartition', () => {
  it.each([
    [undefined, 5, 0],
    [0, 5, 0],
    [3, 5, 3],
    [7, 5, 5], // no upper bound at admission; clamped here
    [5, 5, 5], // an int equal to replicas keeps every pod old
    ['50%', 1, 1], // R = 1: no pod is updated
    ['99%', 5, 4], // ceil(4.95) = 5 = R, percent below 100%: at least one pod updated
    ['100%', 5, 5],
    ['100.0%', 5, 4], // only the exact text "100%" is exempt from the rule
    ['150%', 4, 4],
    ['60%', 2, 1],
    ['40%', 5, 2],
    ['99.5%', 200, 199],
    ['0.5%', 10, 1],
    ['20%', 0, 0],
    [-1, 5, 0],
  ] as const)('partition %j with replicas %i resolves to %i', (partition, replicas, expected) => {
    expect(resolvePartition(partition, replicas)).toBe(expected);
  });

  it('throws on an invalid partition', () => {
    expect(() => resolvePartition('abc', 5)).toThrow(IntOrStringError);
  });

  it('stays within [0, R] and updates at least one pod for percentages below 100% when R > 1 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 2000 }), (hundredths, replicas) => {
        const text = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}%`;
        const p = resolvePartition(text, replicas);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(replicas);
        if (replicas > 1) expect(p).toBeLessThan(replicas);
      }),
    );
  });
});

describe('resolveCloneSetKnobs', () => {
  // The reference table (OpenKruise's CloneSet) for the default maxUnavailable 20% with no surge.
  it.each([
    [1, 1],
    [2, 1],
    [3, 1],
    [5, 1],
    [10, 2],
    [11, 3],
  ])('default maxUnavailable with replicas %i is %i', (replicas, u) => {
    expect(resolveCloneSetKnobs({ replicas }).maxUnavailable).toBe(u);
  });

  it('rounds maxUnavailable down once a surge exists: 20% of R < 5 is 0', () => {
    expect(resolveCloneSetKnobs({ replicas: 4, updateStrategy: { maxSurge: 1 } })).toMatchObject({ maxSurge: 1, maxUnavailable: 0 });
  });

  // OpenKruise's `cloneset_sync_utils_test.go` worked examples: the knob values they start from.
  it.each([
    [{ replicas: 5, updateStrategy: { partition: 3, maxUnavailable: 1, maxSurge: 0 } }, { partition: 3, maxUnavailable: 1, maxSurge: 0 }],
    [{ replicas: 5, updateStrategy: { partition: 3, maxUnavailable: 1, maxSurge: 1 } }, { partition: 3, maxUnavailable: 1, maxSurge: 1 }],
    [{ replicas: 5, updateStrategy: { partition: '99%', maxUnavailable: 3, maxSurge: 2 } }, { partition: 4, maxUnavailable: 3, maxSurge: 2 }],
    [{ replicas: 5, updateStrategy: { partition: '99%', maxUnavailable: '40%', maxSurge: '30%' } }, { partition: 4, maxUnavailable: 2, maxSurge: 2 }],
    [{ replicas: 5, updateStrategy: { partition: '99%', maxUnavailable: '30%', maxSurge: '30%' } }, { partition: 4, maxUnavailable: 1, maxSurge: 2 }],
    [{ replicas: 5, updateStrategy: { partition: 4, maxUnavailable: 2, maxSurge: 0 } }, { partition: 4, maxUnavailable: 2, maxSurge: 0 }],
    [{ replicas: 5, updateStrategy: { partition: 0, maxUnavailable: 0, maxSurge: 1 } }, { partition: 0, maxUnavailable: 0, maxSurge: 1 }],
    [{ replicas: 4, updateStrategy: { partition: 0, maxUnavailable: 1, maxSurge: 0 } }, { partition: 0, maxUnavailable: 1, maxSurge: 0 }],
    [{ replicas: 5, updateStrategy: { partition: 0, maxUnavailable: 0, maxSurge: 3, paused: true } }, { partition: 0, maxUnavailable: 0, maxSurge: 0 }],
    [{ replicas: 3, updateStrategy: { partition: 0, maxUnavailable: 0, maxSurge: 3, paused: true } }, { partition: 0, maxUnavailable: 0, maxSurge: 0 }],
  ])('%j resolves to %j', (spec, expected) => {
    expect(resolveCloneSetKnobs(spec)).toMatchObject(expected);
  });

  it('treats an unset scale maxUnavailable as unlimited and rounds a percentage up', () => {
    expect(resolveCloneSetKnobs({ replicas: 5 }).scaleMaxUnavailable).toBe(UNLIMITED);
    expect(resolveCloneSetKnobs({ replicas: 5, scaleStrategy: { maxUnavailable: '30%' } }).scaleMaxUnavailable).toBe(2);
  });

  it('resolves a decimal percentage of surge or unavailability to 0, as the anchor controller does', () => {
    expect(resolveCloneSetKnobs({ replicas: 10, updateStrategy: { maxSurge: '12.5%', maxUnavailable: '12.5%' } })).toMatchObject({ maxSurge: 0, maxUnavailable: 0 });
  });

  it('defaults replicas to 1', () => {
    expect(resolveCloneSetKnobs({})).toEqual({ partition: 0, maxSurge: 0, maxUnavailable: 1, scaleMaxUnavailable: UNLIMITED });
  });
});
