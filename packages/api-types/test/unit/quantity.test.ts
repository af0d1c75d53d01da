import { describe, expect, it } from 'vitest';
import { parseQuantity } from '../../src/quantity.ts';

describe('parseQuantity', () => {
  it.each([
    ['1Gi', 2 ** 30],
    ['1024Mi', 2 ** 30],
    ['500m', 0.5],
    ['1', 1],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['2k', 2000],
    ['+3M', 3e6],
    ['-1', -1],
    ['100n', 1e-7],
  ])('%s is %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 12);
  });

  it.each(['', '1Gb', 'abc', '1 Gi', '1e', '--1', 'Gi', '1.2.3', '1KiB'])('refuses %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});
