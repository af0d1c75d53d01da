// The label changes the shell writes for the plan's PodOpsLifecycle actions (the SDK's planners
// with the CloneSet's adapters).
import { describe, expect, it } from 'vitest';
import type { OperationAction } from '../../src/core/plan.ts';
import { planOperationWrite } from '../../src/reconciler/operation-writes.ts';
import { pod } from './fixtures.ts';

const NOW = '1767225600000000000';
const OPERATING = 'operating.podopslifecycle.kusionstack.io/cloneset';
const TYPE = 'operation-type.podopslifecycle.kusionstack.io/cloneset';

describe('planOperationWrite', () => {
  it.each<[string, OperationAction, Record<string, string>, { set: Record<string, string>; remove: string[] }]>([
    ['begin scale-in: with the preparing-to-delete hint', { kind: 'beginOperation', name: 'p', type: 'scale-in' }, {}, { set: { [OPERATING]: NOW, [TYPE]: 'scale-in', 'podopslifecycle.kusionstack.io/preparing-to-delete': NOW }, remove: [] }],
    ['begin update: no hint', { kind: 'beginOperation', name: 'p', type: 'update' }, {}, { set: { [OPERATING]: NOW, [TYPE]: 'update' }, remove: [] }],
    ['begin again: nothing to write', { kind: 'beginOperation', name: 'p', type: 'update' }, { [OPERATING]: '1', [TYPE]: 'update' }, { set: {}, remove: [] }],
    ['finish: operating goes, the type stays for the webhook', { kind: 'finishOperation', name: 'p', type: 'update' }, { [OPERATING]: '1', [TYPE]: 'update' }, { set: {}, remove: [OPERATING] }],
    ['undo', { kind: 'undoOperation', name: 'p', type: 'update' }, { [OPERATING]: '1', [TYPE]: 'update' }, { set: { 'undo-operation-type.podopslifecycle.kusionstack.io/cloneset': 'update' }, remove: [] }],
  ])('%s', (_, action, labels, want) => {
    expect(planOperationWrite(action, pod({ labels }), NOW)).toEqual({ ok: true, changes: want });
  });

  it('finish of the wrong type is refused', () => {
    const p = pod({ labels: { [OPERATING]: '1', [TYPE]: 'scale-in' } });
    expect(planOperationWrite({ kind: 'finishOperation', name: 'p', type: 'update' }, p, NOW).ok).toBe(false);
  });
});
