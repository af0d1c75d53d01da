// Table tests of the lifecycle controller's planner: one write per reconcile, in the
// order of Kuperator's controller, and no write at all for a settled pod.
import { describe, expect, it } from 'vitest';
import { POL_SERVICE_READY_GATE } from '@cloneset-suite/api-types';
import { planLifecycle, type LifecycleWrite } from '../../src/core/lifecycle-plan.ts';
import type { LifecycleStage, StageDecision } from '../../src/core/stage-gate.ts';
import { serviceReadyEvent, serviceReadyPatchOps } from '../../src/core/lifecycle-plan.ts';
import { L, NOW, PROT, pod, type PodSpecShort } from './fixtures.ts';

const T = '1700000000000000000';
const pass = (): StageDecision => ({ passed: true, message: '' });
const block = (): StageDecision => ({ passed: false, message: 'blocked by a rule' });
const availableConditions = { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { 'Service/ns/web': PROT } }) };

const labels = (set: Record<string, string>, remove: string[] = []): LifecycleWrite => ({ kind: 'patchLabels', changes: { set: L(set), remove: Object.keys(L(Object.fromEntries(remove.map((r) => [r, ''])))).sort() } });

describe('planLifecycle', () => {
  it.each<{ name: string; pod: PodSpecShort; gate?: (s: LifecycleStage) => StageDecision; want: LifecycleWrite | undefined }>([
    { name: 'settled pod: no write', pod: { labels: { 'service-available': T }, serviceReady: 'True', ready: true }, want: undefined },
    { name: 'new pod: service-ready True first', pod: {}, want: { kind: 'setServiceReady', status: 'True', appended: true } },
    { name: 'new pod without the gate: no condition write', pod: { gate: false }, want: undefined },
    {
      name: 'Ready: service-available, creating and completing hints dropped',
      pod: { labels: { creating: T, 'global-completing': T }, serviceReady: 'True', ready: true },
      want: labels({ 'service-available': NOW }, ['creating', 'global-completing']),
    },
    { name: 'expected finalizer missing: no service-available', pod: { serviceReady: 'True', ready: true, annotations: availableConditions }, want: undefined },
    {
      name: 'expected finalizer present: service-available',
      pod: { serviceReady: 'True', ready: true, annotations: availableConditions, finalizers: [PROT] },
      want: labels({ 'service-available': NOW }),
    },
    { name: 'stay-offline: no service-ready True', pod: { labels: { 'stay-offline': 'x' }, ready: false }, want: undefined },
    { name: 'stay-offline and not Ready: service-available removed', pod: { labels: { 'stay-offline': 'x', 'service-available': T }, serviceReady: 'False' }, want: labels({}, ['service-available']) },
    { name: 'not Ready: service-available removed', pod: { labels: { 'service-available': T, 'operating/a': T, 'operation-type/a': 'u', 'pre-check/a': T } }, gate: block, want: labels({}, ['service-available']) },
    {
      name: 'PreCheck passed: pre-checked and permission for every typed id at once',
      pod: { labels: { 'operating/a': T, 'operation-type/a': 'update', 'pre-check/a': T, 'operating/b': T, 'operation-type/b': 'restart' }, serviceReady: 'True', ready: true },
      want: labels({ 'pre-checked/a': NOW, 'permission/update': NOW, 'pre-checked/b': NOW, 'permission/restart': NOW }),
    },
    { name: 'PreCheck blocked: nothing', pod: { labels: { 'operating/a': T, 'operation-type/a': 'update', 'pre-check/a': T }, serviceReady: 'True', ready: true }, gate: block, want: undefined },
    {
      name: 'PostCheck passed: post-checked',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'update', 'post-check/a': T }, serviceReady: 'False' },
      want: labels({ 'post-checked/a': NOW }),
    },
    {
      name: 'PreCheck is decided before PostCheck',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-check/a': T, 'operating/b': T, 'operation-type/b': 'r', 'pre-check/b': T }, serviceReady: 'False' },
      gate: (s) => (s === 'PreCheck' ? block() : pass()),
      want: undefined,
    },
    { name: 'Preparing: service-ready False', pod: { labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'preparing/a': T }, serviceReady: 'True', ready: true }, want: { kind: 'setServiceReady', status: 'False', appended: false } },
    { name: 'Preparing without the condition: set False first', pod: { labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'preparing/a': T } }, want: { kind: 'setServiceReady', status: 'False', appended: true } },
    {
      name: 'Completing: service-ready True',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T, 'completing/a': T }, serviceReady: 'False' },
      want: { kind: 'setServiceReady', status: 'True', appended: false },
    },
    {
      name: 'Preparing wins over completing (Kuperator issue #248)',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T, 'completing/a': T, 'operating/b': T, 'operation-type/b': 'r', 'pre-checked/b': T, 'permission/r': T, 'preparing/b': T }, serviceReady: 'True', ready: true },
      want: { kind: 'setServiceReady', status: 'False', appended: false },
    },
    {
      name: 'an operation in progress keeps service-ready False while another id completes',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T, 'completing/a': T, 'operating/b': T, 'operation-type/b': 'r', 'pre-checked/b': T, 'permission/r': T, 'operate/b': T }, serviceReady: 'False' },
      want: undefined,
    },
    {
      name: 'Completing with the condition already True: nudge the webhook',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T, 'completing/a': T }, serviceReady: 'True', ready: true },
      want: { kind: 'touch' },
    },
    {
      name: 'after an undo the other id waits at the barrier for a write: nudge (model-test fix)',
      pod: { labels: { 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'operate/a': T }, serviceReady: 'False' },
      want: { kind: 'touch' },
    },
    {
      name: 'Completing without its expected finalizer: wait',
      pod: { labels: { 'operated/a': T, 'done-operation-type/a': 'u', 'post-checked/a': T, 'completing/a': T }, serviceReady: 'True', ready: true, annotations: availableConditions },
      want: undefined,
    },
    { name: 'Operate: nothing to do', pod: { labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'operate/a': T }, serviceReady: 'False' }, want: undefined },
    {
      name: 'an operate value that is no timestamp: nudge the webhook, which rewrites it',
      pod: { labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'operate/a': 'now' }, serviceReady: 'False' },
      want: { kind: 'touch' },
    },
    {
      name: 'an id without operation type waits in PreCheck even when the gate passes',
      pod: { labels: { 'operating/a': T, 'pre-check/a': T }, serviceReady: 'True', ready: true },
      want: undefined,
    },
    { name: 'being deleted: nothing', pod: { deleting: true }, want: undefined },
  ])('$name', (row) => {
    const p = planLifecycle({ pod: pod(row.pod), gate: row.gate ?? pass, now: NOW });
    expect(p.write).toEqual(row.want);
    expect(p.why).not.toBe('');
  });

  it.each<{ name: string; selector: Record<string, string> | null | undefined; dirty: boolean }>([
    { name: 'a Service that is gone', selector: undefined, dirty: true },
    { name: 'a Service without selector', selector: null, dirty: true },
    { name: 'a Service that no longer selects the pod', selector: { app: 'other' }, dirty: true },
    { name: 'a Service that selects the pod', selector: { app: 'web' }, dirty: false },
  ])('expected finalizer of $name', ({ selector, dirty }) => {
    const conditions = { expectedFinalizers: { 'Service/ns/web': PROT, 'Other/ns/x': 'prot.podopslifecycle.kusionstack.io/other' }, extra: 1 };
    const p = pod({ labels: { app: 'web' }, serviceReady: 'True', ready: true, annotations: { 'pod.kusionstack.io/available-conditions': JSON.stringify(conditions) } });
    const asked: string[] = [];
    const result = planLifecycle({ pod: p, gate: pass, now: NOW, serviceSelector: (ns, name) => (asked.push(`${ns}/${name}`), selector) });
    expect(asked).toEqual(['ns/web']);
    if (!dirty) return expect(result.write).toBeUndefined();
    expect(result.write).toEqual({
      kind: 'setAvailableConditions',
      value: JSON.stringify({ expectedFinalizers: { 'Other/ns/x': 'prot.podopslifecycle.kusionstack.io/other' }, extra: 1 }),
      dropped: ['Service/ns/web'],
    });
    expect(result.events).toEqual([expect.objectContaining({ reason: 'ExpectedFinalizersCleaned' })]);
  });

  it('never looks for dirty entries once the expected finalizers are present or the pod is online', () => {
    const annotations = { 'pod.kusionstack.io/available-conditions': JSON.stringify({ expectedFinalizers: { 'Service/ns/web': PROT } }) };
    const lookup = (): undefined => undefined;
    expect(planLifecycle({ pod: pod({ annotations, finalizers: [PROT], serviceReady: 'True', ready: true }), gate: pass, now: NOW, serviceSelector: lookup }).write?.kind).toBe('patchLabels');
    expect(planLifecycle({ pod: pod({ annotations, labels: { 'service-available': T }, serviceReady: 'True', ready: true }), gate: pass, now: NOW, serviceSelector: lookup }).write).toBeUndefined();
  });

  it('a pod the validating webhook would refuse gets a Warning Event and no write', () => {
    const p = planLifecycle({ pod: pod({ labels: { operating: T }, annotations: { 'pod.kusionstack.io/available-conditions': '{' } }), gate: pass, now: NOW });
    expect(p.write).toBeUndefined();
    expect(p.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'InvalidLifecycle' })]);
    expect(p.events[0]!.note).toContain('operating.podopslifecycle.kusionstack.io');
    expect(p.events[0]!.note).toContain('pod.kusionstack.io/available-conditions');
  });

  it('writes the condition through pods/status with the spec message', () => {
    const p = pod({ serviceReady: 'True' });
    expect(serviceReadyPatchOps(p, 'False', '2026-01-01T00:00:00.000Z')).toEqual([
      { op: 'replace', path: '/status/conditions/1', value: { type: POL_SERVICE_READY_GATE, status: 'False', message: 'updated by PodOpsLifecycle', lastTransitionTime: '2026-01-01T00:00:00.000Z' } },
    ]);
    expect(serviceReadyPatchOps(pod(), 'True', 'x')[0]).toMatchObject({ op: 'add', path: '/status/conditions/-' });
    const bare = pod();
    delete bare.status;
    expect(serviceReadyPatchOps(bare, 'True', 'x')[0]).toMatchObject({ op: 'add', path: '/status/conditions' });
    expect(serviceReadyEvent({ kind: 'setServiceReady', status: 'True', appended: true }).note).toBe('append service readiness gate to: True');
    expect(serviceReadyEvent({ kind: 'setServiceReady', status: 'False', appended: false }).note).toBe('update service readiness gate to: False');
  });

  describe('a pod whose kusionstack.io/control label was removed', () => {
    const released = (s: PodSpecShort) => {
      const p = pod(s);
      delete p.metadata!.labels!['kusionstack.io/control'];
      return p;
    };

    it('mid-operation: service-ready goes True (nothing else would ever set it), with a Warning naming the ids', () => {
      const p = planLifecycle({ pod: released({ labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-checked/a': T, 'permission/u': T, 'preparing/a': T }, serviceReady: 'False' }), gate: pass, now: NOW });
      expect(p.write).toEqual({ kind: 'setServiceReady', status: 'True', appended: false });
      expect(p.events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'ControlLabelRemoved' })]);
      expect(p.events[0]!.note).toContain('during lifecycle a');
    });

    it('with the gate and no condition yet: service-ready True', () => {
      expect(planLifecycle({ pod: released({}), gate: pass, now: NOW }).write).toEqual({ kind: 'setServiceReady', status: 'True', appended: true });
    });

    it.each<[string, PodSpecShort]>([
      ['already True', { serviceReady: 'True', labels: { 'operating/a': T, 'operation-type/a': 'u', 'pre-check/a': T } }],
      ['without the gate', { gate: false, labels: { 'service-available': T } }],
    ])('%s: nothing to write, no lifecycle label touched', (_name, s) => {
      const p = planLifecycle({ pod: released(s), gate: pass, now: NOW });
      expect(p.write).toBeUndefined();
      expect(p.events).toEqual([]);
    });
  });
});
