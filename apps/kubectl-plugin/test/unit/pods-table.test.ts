import type { CloneSet } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { lifecyclePhases, podRow, podsTable, transitionRuleHolds, type PodRow } from '../../src/core/pods-table.ts';

const NOW = new Date('2030-01-01T12:00:00Z');
const cs = { metadata: { name: 'web' }, spec: { selector: {}, template: {} }, status: { updateRevision: 'web-bbb', currentRevision: 'web-aaa' } } as unknown as CloneSet;
const ns = (iso: string): string => `${BigInt(Date.parse(iso)) * 1_000_000n}`;

function pod(name: string, o: { labels?: Record<string, string>; annotations?: Record<string, string>; ready?: string; node?: string; created?: string; deleting?: boolean } = {}): V1Pod {
  return {
    metadata: {
      name,
      labels: { 'apps.kruise.io/cloneset-instance-id': name.slice(-5), ...o.labels },
      annotations: o.annotations,
      creationTimestamp: new Date(o.created ?? '2030-01-01T11:00:00Z'),
      ...(o.deleting ? { deletionTimestamp: new Date('2030-01-01T11:59:00Z') } : {}),
    },
    ...(o.node ? { spec: { nodeName: o.node, containers: [] } } : {}),
    status: { conditions: o.ready ? [{ type: 'Ready', status: o.ready }] : [] },
  };
}

describe('podRow', () => {
  const cases: [string, V1Pod, Partial<PodRow>][] = [
    [
      'a settled pod on the update revision',
      pod('web-abcde', { labels: { 'controller-revision-hash': 'web-bbb', 'lifecycle.apps.kruise.io/state': 'Normal' }, ready: 'True', node: 'node-1' }),
      { instanceId: 'abcde', revision: 'web-bbb (update)', state: 'Normal', ready: 'True', opsPhase: '-', operation: '-', heldBy: '-', since: '60m', node: 'node-1' },
    ],
    [
      'current revision under the short hash label',
      pod('web-fghij', { labels: { 'controller-revision-hash': 'aaa' } }),
      { revision: 'aaa (current)', state: '-', ready: 'False', node: '<none>' },
    ],
    ['an old revision', pod('web-klmno', { labels: { 'controller-revision-hash': 'web-zzz' } }), { revision: 'web-zzz (old)' }],
    ['no revision label', pod('web-pqrst'), { revision: '-', instanceId: 'pqrst' }],
    ['terminating', pod('web-uvwxy', { ready: 'True', deleting: true }), { ready: 'Terminating' }],
    [
      'kruise lifecycle state with its timestamp',
      pod('web-aaaaa', { labels: { 'lifecycle.apps.kruise.io/state': 'PreparingUpdate' }, annotations: { 'lifecycle.apps.kruise.io/timestamp': '2030-01-01T11:59:30Z' } }),
      { state: 'PreparingUpdate', since: '30s' },
    ],
    [
      'in PodOpsLifecycle pre-check, held by a transition rule',
      pod('web-bbbbb', {
        labels: {
          'operating.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:50:00Z'),
          'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
          'pre-check.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:57:00Z'),
        },
        annotations: {
          'detail.podtransitionrule.kusionstack.io/zone-guard': JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'max-unavailable', reason: 'quota of 1 used' }] }),
          'detail.podtransitionrule.kusionstack.io/passing': JSON.stringify({ stage: 'PreCheck', passed: true }),
        },
      }),
      { opsPhase: 'PreCheck', operation: 'cloneset/update', heldBy: 'zone-guard/max-unavailable: quota of 1 used', since: '3m' },
    ],
    [
      'allowed to operate',
      pod('web-ccccc', {
        labels: {
          'operating.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:50:00Z'),
          'pre-check.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:51:00Z'),
          'pre-checked.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:52:00Z'),
          'preparing.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:53:00Z'),
          'operate.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:54:00Z'),
        },
      }),
      { opsPhase: 'Operating', operation: 'cloneset/-', since: '6m' },
    ],
    [
      'between operations: the lifecycle controller phase label',
      pod('web-ddddd', { labels: { 'podopslifecycle.cloneset-suite.io/phase': 'ServiceAvailable', 'podopslifecycle.kusionstack.io/service-available': 'true' } }),
      { opsPhase: 'ServiceAvailable', operation: '-' },
    ],
    [
      'operated: named PostCheck as the controller and its Events name it',
      pod('web-eeeee', {
        labels: {
          'operating.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:50:00Z'),
          'operated.podopslifecycle.kusionstack.io/cloneset': ns('2030-01-01T11:58:00Z'),
          'done-operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
        },
      }),
      { opsPhase: 'PostCheck', operation: 'cloneset/update', since: '2m' },
    ],
  ];
  it.each(cases)('%s', (_, p, expected) => {
    expect(podRow(p, cs, NOW)).toMatchObject(expected);
  });
});

describe('lifecyclePhases and transitionRuleHolds', () => {
  it('reports one phase per lifecycle id, ordered by id', () => {
    const phases = lifecyclePhases({
      'operating.podopslifecycle.kusionstack.io/b': '1',
      'operation-type.podopslifecycle.kusionstack.io/b': 'update',
      'operating.podopslifecycle.kusionstack.io/a': '1',
      'post-check.podopslifecycle.kusionstack.io/a': '2',
      'operated.podopslifecycle.kusionstack.io/a': '2',
      'operating.podopslifecycle.kusionstack.io/c': '1',
    });
    expect(phases.map((p) => [p.id, p.phase, p.operationType])).toEqual([
      ['a', 'PostCheck', undefined],
      ['b', 'PreCheck', 'update'],
      // Admitted as Kuperator admits it; it waits in PreCheck until the type is written.
      ['c', 'NoOperationType', undefined],
    ]);
  });

  it('names every rejecting rule and survives unreadable details', () => {
    expect(
      transitionRuleHolds({
        'detail.podtransitionrule.kusionstack.io/b': '{not json',
        'detail.podtransitionrule.kusionstack.io/a': JSON.stringify({ passed: false }),
        'other/annotation': 'x',
      }),
    ).toEqual(['a: rejected', 'b: unreadable detail']);
  });
});

describe('podsTable', () => {
  it('orders rows by name under the header', () => {
    const table = podsTable([pod('web-zzzzz'), pod('web-aaaaa')], cs, NOW);
    expect(table[0]).toEqual(['NAME', 'INSTANCE-ID', 'REVISION', 'STATE', 'READY', 'OPS-PHASE', 'OPERATION', 'HELD-BY', 'WAITING-FOR', 'SINCE', 'NODE']);
    expect(table.slice(1).map((r) => r[0])).toEqual(['web-aaaaa', 'web-zzzzz']);
  });

  it('WAITING-FOR: the kinds of the planner\'s waits naming the pod', () => {
    const waits = [{ kind: 'maxUnavailable', pods: ['web-zzzzz'] }, { kind: 'podTransitionRule', pods: ['web-zzzzz', 'web-bbbbb'] }, { kind: 'deleting' }];
    const table = podsTable([pod('web-zzzzz'), pod('web-aaaaa')], cs, NOW, waits);
    expect(table.slice(1).map((r) => [r[0], r[8]])).toEqual([['web-aaaaa', '-'], ['web-zzzzz', 'maxUnavailable,podTransitionRule']]);
  });
});
