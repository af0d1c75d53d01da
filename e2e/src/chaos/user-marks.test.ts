import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkUserMarks, missingWrittenMarks, USER_MARK_PREFIX, type MarkedPod, type MarkHistory } from './user-marks.ts';

const mark = (n: number): string => `${USER_MARK_PREFIX}m${n}`;
const pod = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}, uid = 'u1'): MarkedPod => ({ name: `p-${uid}`, uid, labels: { app: 'x', ...labels }, annotations });
const run = (samples: MarkedPod[][]): string[] => {
  let history: MarkHistory = new Map();
  const out: string[] = [];
  for (const s of samples) {
    const r = checkUserMarks(history, s);
    history = r.history;
    out.push(...r.violations.map((v) => v.detail));
  }
  return out;
};

describe('checkUserMarks', () => {
  it.each<[string, MarkedPod[][], number]>([
    ['marks only added', [[pod({ [mark(1)]: 'a' })], [pod({ [mark(1)]: 'a', [mark(2)]: 'b' }, { [mark(3)]: 'c' })]], 0],
    ['a controller label changing is not the user\'s', [[pod({ [mark(1)]: 'a', 'lifecycle.apps.kruise.io/state': 'Normal' })], [pod({ [mark(1)]: 'a', 'lifecycle.apps.kruise.io/state': 'Updating' })]], 0],
    ['a user label removed', [[pod({ [mark(1)]: 'a' })], [pod()]], 1],
    ['a user annotation replaced', [[pod({}, { [mark(1)]: 'a' })], [pod({}, { [mark(1)]: 'b' })]], 1],
    ['a lost mark is reported on every later sample', [[pod({ [mark(1)]: 'a' })], [pod()], [pod()]], 2],
    ['a deleted pod and its replacement (new uid) start afresh', [[pod({ [mark(1)]: 'a' })], [], [pod({}, {}, 'u2')]], 0],
  ])('%s', (_name, samples, violations) => {
    expect(run(samples)).toHaveLength(violations);
  });

  it('property: with marks only ever added, nothing is reported; dropping any one seen mark is', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), fc.nat(), (asLabel, drop) => {
        const grow = asLabel.map((_, i) => {
          const labels: Record<string, string> = {};
          const annotations: Record<string, string> = {};
          for (let k = 0; k <= i; k++) (asLabel[k] ? labels : annotations)[mark(k)] = `v${k}`;
          return [pod(labels, annotations)];
        });
        expect(run(grow)).toEqual([]);
        const last = grow.at(-1)![0]!;
        const victim = mark(drop % asLabel.length);
        const without = pod(
          Object.fromEntries(Object.entries(last.labels ?? {}).filter(([k]) => k !== victim)),
          Object.fromEntries(Object.entries(last.annotations ?? {}).filter(([k]) => k !== victim)),
        );
        expect(run([...grow, [without]])).toHaveLength(1);
      }),
    );
  });
});

describe('missingWrittenMarks', () => {
  it('names written marks a surviving pod lost, ignores pods gone since', () => {
    const written = new Map([
      ['u1', new Map([[`label:${mark(1)}`, 'a'], [`annotation:${mark(2)}`, 'b']])],
      ['gone', new Map([[`label:${mark(3)}`, 'c']])],
    ]);
    expect(missingWrittenMarks(written, [pod({ [mark(1)]: 'a' }, { [mark(2)]: 'b' })])).toEqual([]);
    expect(missingWrittenMarks(written, [pod({ [mark(1)]: 'a' })])).toEqual([`pod p-u1: annotation:${mark(2)}=b`]);
  });
});
