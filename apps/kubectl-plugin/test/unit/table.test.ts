import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { humanDuration, renderTable } from '../../src/core/table.ts';

describe('humanDuration (apimachinery HumanDuration)', () => {
  const S = 1000;
  const M = 60 * S;
  const H = 60 * M;
  const D = 24 * H;
  it.each([
    [-5 * S, '0s'],
    [0, '0s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [3 * M + 20 * S, '3m20s'],
    [12 * M + 59 * S, '12m'],
    [179 * M, '179m'],
    [5 * H + 3 * M, '5h3m'],
    [8 * H, '8h'],
    [47 * H, '47h'],
    [3 * D + 4 * H, '3d4h'],
    [3 * D, '3d'],
    [40 * D, '40d'],
    [2 * 365 * D + 10 * D, '2y10d'],
    [9 * 365 * D, '9y'],
  ])('%d ms is %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('renderTable', () => {
  it('pads columns by three spaces like kubectl', () => {
    expect(renderTable([
      ['REVISION', 'CHANGE-CAUSE'],
      ['1', '<none>'],
    ])).toBe('REVISION   CHANGE-CAUSE\n1          <none>\n');
  });

  it('starts every cell of a column at the same offset', () => {
    const cell = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }).chain((n) => fc.array(fc.array(cell, { minLength: n, maxLength: n }), { minLength: 1, maxLength: 6 })), (rows) => {
        const lines = renderTable(rows).split('\n').slice(0, -1);
        const offsets = (line: string, row: string[]): number[] => {
          let at = 0;
          return row.map((c) => {
            const found = line.indexOf(c, at);
            at = found + c.length;
            return found;
          });
        };
        const first = offsets(lines[0]!, rows[0]!);
        rows.forEach((row, i) => expect(offsets(lines[i]!, row)).toEqual(first));
      }),
    );
  });
});
