// The operation SDK's pure planners (package README, The operation SDK).
import { describe, expect, it } from 'vitest';
import { POL_LABELS } from '@cloneset-suite/api-types';
import { allowOps, isDuringOps, needsCleaningBeforeBegin, planBegin, planFinish, planUndo, preparingToDeleteHook, type OperationAdapter } from '../../src/core/sdk.ts';
import { L, NOW, pod } from './fixtures.ts';

const T = '1000';
const update: OperationAdapter = { id: 'cloneset', type: 'update', allowMultiType: true };

describe('operation SDK', () => {
  it('begin writes operating and operation-type together, plus the hook labels', () => {
    const adapter: OperationAdapter = { ...update, type: 'scale-in', whenBegin: (p, now) => preparingToDeleteHook(p, now) };
    expect(planBegin(pod(), adapter, NOW)).toEqual({
      ok: true,
      changes: { set: { ...L({ 'operating/cloneset': NOW, 'operation-type/cloneset': 'scale-in' }), [POL_LABELS.preparingToDelete]: NOW }, remove: [] },
    });
  });

  it('begin during the same operation writes nothing; a different type overwrites the type only', () => {
    const during = pod({ labels: { 'operating/cloneset': T, 'operation-type/cloneset': 'update' } });
    expect(planBegin(during, update, NOW)).toEqual({ ok: true, changes: { set: {}, remove: [] } });
    expect(planBegin(during, { ...update, type: 'scale-in' }, NOW)).toEqual({ ok: true, changes: { set: L({ 'operation-type/cloneset': 'scale-in' }), remove: [] } });
  });

  it('begin refuses a type another id runs unless the adapter allows multi-type', () => {
    const other = pod({ labels: { 'operating/job': T, 'operation-type/job': 'update' } });
    expect(planBegin(other, { id: 'cloneset', type: 'update' }, NOW)).toMatchObject({ ok: false, error: expect.stringContaining('already in progress') });
    expect(planBegin(other, update, NOW).ok).toBe(true);
  });

  it('isDuringOps needs operating and the same type', () => {
    expect(isDuringOps(pod({ labels: { 'operating/cloneset': T, 'operation-type/cloneset': 'update' } }), update)).toBe(true);
    expect(isDuringOps(pod({ labels: { 'operating/cloneset': T, 'operation-type/cloneset': 'scale-in' } }), update)).toBe(false);
    expect(isDuringOps(pod({ labels: { 'operation-type/cloneset': 'update' } }), update)).toBe(false);
  });

  it('allowOps needs the operate label, and honours a delay from its timestamp', () => {
    const labels = { 'operating/cloneset': T, 'operation-type/cloneset': 'update' };
    expect(allowOps(pod({ labels }), update, 0)).toEqual({ allowed: false });
    const granted = 1_700_000_000_000; // ms
    const allowed = pod({ labels: { ...labels, 'operate/cloneset': `${BigInt(granted) * 1_000_000n}` } });
    expect(allowOps(allowed, update, granted + 1_000)).toEqual({ allowed: true });
    expect(allowOps(allowed, update, granted + 1_000, 3)).toEqual({ allowed: false, requeueAfterMs: 2_000 });
    expect(allowOps(allowed, update, granted + 3_000, 3)).toEqual({ allowed: true });
    expect(allowOps(allowed, { ...update, type: 'scale-in' }, granted + 3_000)).toEqual({ allowed: false });
  });

  it.each(['yes', '1', ''])('allowOps never skips the delay for an operate value that is no timestamp (%j)', (value) => {
    const labels = { 'operating/cloneset': T, 'operation-type/cloneset': 'update', 'operate/cloneset': value };
    expect(allowOps(pod({ labels }), update, 1_700_000_000_000, 3)).toEqual({ allowed: false, requeueAfterMs: 3_000 });
    expect(allowOps(pod({ labels }), update, 1_700_000_000_000)).toEqual({ allowed: true });
  });

  it('finish removes operating only, refuses a type mismatch, and is idempotent', () => {
    const during = pod({ labels: { 'operating/cloneset': T, 'operation-type/cloneset': 'update', 'operate/cloneset': T } });
    expect(planFinish(during, update, NOW)).toEqual({ ok: true, changes: { set: {}, remove: Object.keys(L({ 'operating/cloneset': '' })) } });
    expect(planFinish(during, { ...update, type: 'scale-in' }, NOW)).toMatchObject({ ok: false });
    expect(planFinish(pod(), update, NOW)).toEqual({ ok: true, changes: { set: {}, remove: [] } });
  });

  it('undo adds the undo label for a known id only', () => {
    expect(planUndo(pod({ labels: { 'operating/cloneset': T, 'operation-type/cloneset': 'update' } }), update)).toEqual({ ok: true, changes: { set: L({ 'undo-operation-type/cloneset': 'update' }), remove: [] } });
    expect(planUndo(pod(), update)).toEqual({ ok: true, changes: { set: {}, remove: [] } });
  });

  it('beginWithCleaningOld undoes only while operating', () => {
    expect(needsCleaningBeforeBegin(pod({ labels: { 'operating/cloneset': T } }), update)).toBe(true);
    expect(needsCleaningBeforeBegin(pod({ labels: { 'operated/cloneset': T } }), update)).toBe(false);
  });
});
