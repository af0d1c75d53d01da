// Properties of the mutating webhook function over arbitrary label sets of two ids.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutatePod } from '../../src/core/mutate.ts';
import { readLifecycle } from '../../src/core/protocol.ts';
import { validatePod } from '../../src/core/validate.ts';
import { L, PROT, pod } from './fixtures.ts';

const PER_ID = ['operating', 'operation-type', 'pre-check', 'pre-checked', 'preparing', 'operate', 'operated', 'done-operation-type', 'post-check', 'post-checked', 'completing', 'undo-operation-type'];
const labelSets = fc
  .subarray([...PER_ID.flatMap((p) => [`${p}/a`, `${p}/b`]), 'permission/update', 'service-available'])
  .map((keys) => L(Object.fromEntries(keys.map((k) => [k, k.includes('type') ? 'update' : '1']))));
const pods = fc
  .record({ labels: labelSets, prot: fc.boolean(), serviceReady: fc.constantFrom<'True' | 'False' | undefined>('True', 'False', undefined) })
  .map((r) => {
    const p = pod({ serviceReady: r.serviceReady, ...(r.prot ? { finalizers: [PROT] } : {}) });
    p.metadata!.labels = r.labels;
    return p;
  });
const keySet = (labels: Record<string, string> | undefined): string => Object.keys(labels ?? {}).sort().join(',');

describe('mutatePod properties', () => {
  it('reaches a fixpoint: re-applying it (as the controller nudges do) stops changing the keys', () => {
    fc.assert(
      fc.property(pods, (p) => {
        let cur = p;
        for (let i = 0; i < 6; i++) cur = mutatePod(cur, cur, 'UPDATE', String(i + 2));
        expect(keySet(mutatePod(cur, cur, 'UPDATE', '99').metadata?.labels)).toBe(keySet(cur.metadata?.labels));
      }),
      { numRuns: 2000 },
    );
  });

  it('never adds an operate label while a protection finalizer is on the pod', () => {
    fc.assert(
      fc.property(pods, (p) => {
        if (!p.metadata?.finalizers?.length) return;
        const before = Object.keys(p.metadata.labels ?? {}).filter((k) => k.startsWith('operate.'));
        const after = Object.keys(mutatePod(p, p, 'UPDATE', '2').metadata?.labels ?? {}).filter((k) => k.startsWith('operate.'));
        expect(after.filter((k) => !before.includes(k))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  // Strays (per-id labels of an id with no operating/operate/operated label) and pre-checked
  // without operation-type are only ever written by hand (the controller grants pre-checked to
  // typed ids, and both leave together); from any other valid pod, the result is valid too.
  it('keeps a valid pod without stray labels valid', () => {
    fc.assert(
      fc.property(pods, (p) => {
        const view = readLifecycle(p.metadata?.labels);
        if ([...view.labelsById.keys()].some((id) => !view.ids.includes(id))) return;
        if ([...view.labelsById.values()].some((l) => l.preChecked !== undefined && l.operationType === undefined)) return;
        if (validatePod(p).length > 0) return;
        expect(validatePod(mutatePod(p, p, 'UPDATE', '2'))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});
