// The label changes the shell writes for the plan's PodOpsLifecycle actions (the SDK's planners
// with the CloneSet's adapters), and the record of what a begin began.
import { describe, expect, it } from 'vitest';
import { FakeClock, Resources, type KubeObject } from '@cloneset-suite/kube-runtime';
import { CLONESET_OPERATION_ANNOTATION, cloneSetLifecycle } from '../../src/core/lifecycle/begun-operation.ts';
import type { OperationAction } from '../../src/core/plan.ts';
import { operationPatchOps, planOperationWrite, writeOperation, type OperationWrite } from '../../src/reconciler/actions/operation-writes.ts';
import { fakeApi } from './fake-api.ts';
import { pod } from './fixtures.ts';

const NOW = '1767225600000000000';
const OPERATING = 'operating.podopslifecycle.kusionstack.io/cloneset';
const TYPE = 'operation-type.podopslifecycle.kusionstack.io/cloneset';
const TO_DELETE = 'podopslifecycle.kusionstack.io/preparing-to-delete';
const record = (type: string, deletesPod: boolean, operating = NOW) => JSON.stringify({ type, deletesPod, operating });

describe('planOperationWrite', () => {
  it.each<[string, OperationAction, Record<string, string>, OperationWrite]>([
    [
      'begin scale-in: with the preparing-to-delete hint and the record',
      { kind: 'beginOperation', name: 'p', type: 'scale-in', deletesPod: true },
      {},
      { labels: { set: { [OPERATING]: NOW, [TYPE]: 'scale-in', [TO_DELETE]: NOW }, remove: [] }, record: record('scale-in', true) },
    ],
    [
      'begin an in-place update: no hint',
      { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: false },
      {},
      { labels: { set: { [OPERATING]: NOW, [TYPE]: 'update' }, remove: [] }, record: record('update', false) },
    ],
    [
      'begin an update that re-creates the pod: the hint, as for a scale-in',
      { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: true },
      {},
      { labels: { set: { [OPERATING]: NOW, [TYPE]: 'update', [TO_DELETE]: NOW }, remove: [] }, record: record('update', true) },
    ],
    [
      'begin over a hint an undone scale-in left: written again with this begin',
      { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: true },
      { [TO_DELETE]: '1' },
      { labels: { set: { [OPERATING]: NOW, [TYPE]: 'update', [TO_DELETE]: NOW }, remove: [] }, record: record('update', true) },
    ],
    [
      'begin again: the labels stand, the record names the running timestamp',
      { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: false },
      { [OPERATING]: '1', [TYPE]: 'update' },
      { labels: { set: {}, remove: [] }, record: record('update', false, '1') },
    ],
    [
      'finish: operating goes, the type stays for the webhook',
      { kind: 'finishOperation', name: 'p', type: 'update' },
      { [OPERATING]: '1', [TYPE]: 'update' },
      { labels: { set: {}, remove: [OPERATING] } },
    ],
    [
      'undo',
      { kind: 'undoOperation', name: 'p', type: 'update' },
      { [OPERATING]: '1', [TYPE]: 'update' },
      { labels: { set: { 'undo-operation-type.podopslifecycle.kusionstack.io/cloneset': 'update' }, remove: [] } },
    ],
  ])('%s', (_, action, labels, want) => {
    expect(planOperationWrite(action, pod({ labels }), NOW)).toEqual({ ok: true, write: want });
  });

  it('finish and undo drop the record of a begin', () => {
    const p = pod({ labels: { [OPERATING]: '1', [TYPE]: 'update' } });
    p.metadata!.annotations = { [CLONESET_OPERATION_ANNOTATION]: record('update', false, '1') };
    for (const kind of ['finishOperation', 'undoOperation'] as const) {
      const plan = planOperationWrite({ kind, name: 'p', type: 'update' }, p, NOW);
      expect(plan.ok && plan.write.record).toBe(null);
    }
  });

  it('finish of the wrong type is refused', () => {
    const p = pod({ labels: { [OPERATING]: '1', [TYPE]: 'scale-in' } });
    expect(planOperationWrite({ kind: 'finishOperation', name: 'p', type: 'update' }, p, NOW).ok).toBe(false);
  });
});

describe('a begin, written and read back', () => {
  /** The pod as the JSON patch leaves it (labels and the record; the patch's own semantics are kube-runtime's). */
  const applied = (labels: Record<string, string>, annotations: Record<string, string> | undefined, action: OperationAction) => {
    const p = pod({ labels });
    if (annotations) p.metadata!.annotations = annotations;
    else delete p.metadata!.annotations;
    const plan = planOperationWrite(action, p, NOW);
    if (!plan.ok) throw new Error(plan.error);
    const ops = operationPatchOps(p, plan.write);
    const next = pod({ labels: { ...labels, ...plan.write.labels.set } });
    next.metadata!.annotations = { ...(annotations ?? {}), ...(typeof plan.write.record === 'string' ? { [CLONESET_OPERATION_ANNOTATION]: plan.write.record } : {}) };
    return { ops, next };
  };

  it.each<[string, OperationAction]>([
    ['a scale-in', { kind: 'beginOperation', name: 'p', type: 'scale-in', deletesPod: true }],
    ['an in-place update', { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: false }],
    ['a re-creating update', { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: true }],
  ])('%s is the CloneSet\'s own operation, as begun', (_, action) => {
    const { next } = applied({}, undefined, action);
    expect(cloneSetLifecycle(next)).toEqual({ state: 'ours', operation: { type: action.type, deletesPod: action.deletesPod }, granted: false });
  });

  it('adds the annotations map when the pod has none, else only the record key', () => {
    const begin: OperationAction = { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: false };
    expect(applied({}, undefined, begin).ops.filter((o) => o.path.startsWith('/metadata/annotations'))).toEqual([
      { op: 'add', path: '/metadata/annotations', value: { [CLONESET_OPERATION_ANNOTATION]: record('update', false) } },
    ]);
    expect(applied({}, { other: 'x' }, begin).ops.filter((o) => o.path.startsWith('/metadata/annotations'))).toEqual([
      { op: 'add', path: '/metadata/annotations/podopslifecycle.cloneset-suite.io~1cloneset-operation', value: record('update', false) },
    ]);
  });
});

describe('writeOperation', () => {
  it("stamps the labels with the manager's clock, not the wall clock", async () => {
    const api = fakeApi();
    const begin: OperationAction = { kind: 'beginOperation', name: 'p', type: 'update', deletesPod: false };
    const at = Date.parse('2020-06-01T00:00:00Z');
    const pods = api.client.resource<KubeObject>(Resources.pods);
    await writeOperation(begin, pod({}) as unknown as KubeObject, pods, 'ns', { signal: new AbortController().signal, clock: new FakeClock(at) });
    const stamp = `${at}000000`;
    const patch = api.calls[0]?.body as { body: { path: string; value?: unknown }[] };
    expect(patch.body.find((o) => o.path.endsWith('operating.podopslifecycle.kusionstack.io~1cloneset'))?.value).toBe(stamp);
  });
});
