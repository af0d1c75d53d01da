// What the two pod webhooks admit together, as the apiserver runs them: the mutating webhook
// (mutatePod), then the validating webhook (validatePod) on its result. A write that leaves
// `operated/<id>` without `done-operation-type/<id>`, or the reverse, is refused "not found
// label", as Kuperator refuses it: the mutating webhook moves an id on, it never makes up the pair
// a write broke (Kuperator's barrier only pairs an id it moves to operated, with the old pod's type).
import { describe, expect, it } from 'vitest';
import { mutatePod } from '../../src/core/mutate.ts';
import { validatePod } from '../../src/core/validate.ts';
import { NOW, k, pod } from './fixtures.ts';

const T = '1700000000000000000';
const postCheck = { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T };

/** The reasons the validating webhook gives for what the mutating webhook made of the write. */
function admit(old: Record<string, string>, written: Record<string, string>): string[] {
  return validatePod(mutatePod(pod({ labels: old }), pod({ labels: written }), 'UPDATE', NOW)).map((v) => v.reason);
}

describe('admission of the operated / done-operation-type pair', () => {
  it.each<[string, Record<string, string>, Record<string, string>, string[]]>([
    ['a write adding operated alone to a pod in no lifecycle', {}, { 'operated/a': T }, [`not found label ${k('done-operation-type/a')}`]],
    ['a write adding done-operation-type alone', {}, { 'done-operation-type/a': 'update' }, [`not found label ${k('operated/a')}`]],
    ['a write removing done-operation-type in PostCheck', postCheck, { 'operated/a': T, 'post-check/a': T }, [`not found label ${k('done-operation-type/a')}`]],
    ['a write removing operated in PostCheck', postCheck, { 'done-operation-type/a': 'update', 'post-check/a': T }, [`not found label ${k('operated/a')}`]],
    ['a begin written with operated and no done-operation-type', {}, { 'operating/a': T, 'operation-type/a': 'update', 'operated/a': T }, [`not found label ${k('done-operation-type/a')}`]],
    ['a begin written with done-operation-type and no operated', {}, { 'operating/a': T, 'operation-type/a': 'update', 'done-operation-type/a': 'update' }, [`not found label ${k('operated/a')}`]],
    [
      'a write adding operated to a second id while the first runs',
      { 'operating/b': T, 'operation-type/b': 'update', 'pre-check/b': T },
      { 'operating/b': T, 'operation-type/b': 'update', 'pre-check/b': T, 'operated/a': T },
      [`not found label ${k('done-operation-type/a')}`],
    ],
  ])('refuses %s', (_name, old, written, reasons) => {
    expect(admit(old, written)).toEqual(reasons);
  });

  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['both labels written together', {}, { 'operated/a': T, 'done-operation-type/a': 'update' }],
    ['an id the barrier moves to operated takes its type from the old pod', { 'operation-type/a': 'update', 'operate/a': T }, { 'operation-type/a': 'update', 'operate/a': T }],
    ['an operated id whose old pod still named its type gets its pair from it', { 'operation-type/a': 'update', 'operate/a': T }, { 'operation-type/a': 'update', 'operated/a': T }],
    ['a typeless id the barrier moves to operated is paired with an empty type', { 'operate/a': T }, { 'operate/a': T }],
    ['a PostCheck pod left as it is', postCheck, { ...postCheck, app: 'web' }],
    ['a begin again in PostCheck (the earlier run cleared)', postCheck, { ...postCheck, 'operating/a': T, 'operation-type/a': 'update' }],
  ])('admits %s', (_name, old, written) => {
    expect(admit(old, written)).toEqual([]);
  });
});
