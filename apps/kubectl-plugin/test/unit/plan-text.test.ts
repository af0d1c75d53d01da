import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import { describe, expect, it } from 'vitest';
import type { PlanReport } from '../../src/core/plan-report.ts';
import { planText } from '../../src/core/plan-text.ts';

const base: PlanReport = {
  cloneSet: {
    namespace: 'prod',
    name: 'web',
    generation: 2,
    observedGeneration: 2,
    replicas: 4,
    pods: 4,
    updatedReplicas: 0,
    readyReplicas: 4,
    availableReplicas: 4,
    currentRevision: 'web-aaa',
    updateRevision: 'web-bbb',
    podsByRevision: { 'web-aaa': 4 },
    updateStrategy: { type: 'InPlaceIfPossible', paused: false, partition: 0, maxUnavailable: 1, maxSurge: 0 },
    minReadySeconds: 0,
  },
  settled: false,
  actions: [],
  waits: [],
  errors: [],
  notes: [],
  featureGates: { ...FEATURE_GATE_DEFAULTS },
  planner: {},
};

describe('planText', () => {
  it('a settled CloneSet: its numbers and one line', () => {
    const report: PlanReport = {
      ...base,
      settled: true,
      cloneSet: { ...base.cloneSet, updatedReplicas: 4, currentRevision: 'web-bbb', podsByRevision: { 'web-bbb': 4 }, minReadySeconds: 5 },
    };
    expect(planText(report)).toBe(
      [
        'clone/web in prod: 4 replicas, 4 pods (4 updated, 4 ready, 4 available)',
        'revision web-bbb; pods by revision: web-bbb: 4',
        'strategy: InPlaceIfPossible, partition 0, maxUnavailable 1, maxSurge 0, minReadySeconds 5',
        '',
        'Nothing to do: every pod is at revision web-bbb and nothing waits.',
        '',
      ].join('\n'),
    );
  });

  it('the next actions as a table, the waits one per line, when the controller looks again, the notes', () => {
    const report: PlanReport = {
      ...base,
      actions: [
        { action: 'updateInPlace', pod: 'web-p3', revision: 'web-bbb', reason: 'images main=web:2' },
        { action: 'create', revision: 'web-bbb', reason: '3 of 4 replicas; instance id drawn by the controller' },
        { action: 'deleteRevision', object: 'controllerrevision/web-old', reason: 'beyond revisionHistoryLimit' },
      ],
      waits: [
        { kind: 'maxUnavailable', pods: ['web-p2'], maxUnavailable: 1, unavailable: [], taking: ['web-p3'], message: 'web-p2: waiting for the maxUnavailable budget (1 pod(s)); taken by this pass: web-p3' },
        { kind: 'minReadySeconds', pods: ['web-p1'], why: { cause: 'minReadySeconds', minReadySeconds: 5, readyForSeconds: 2, availableInMs: 3000 }, availableInSeconds: 3, message: 'web-p1: Ready for 2s of minReadySeconds 5; available in 3s' },
      ],
      requeueAfterSeconds: 3,
      notes: ['terminating, no longer counted: web-p9'],
    };
    expect(planText(report)).toBe(
      [
        'clone/web in prod: 4 replicas, 4 pods (0 updated, 4 ready, 4 available)',
        'update revision web-bbb, current web-aaa; pods by revision: web-aaa: 4',
        'strategy: InPlaceIfPossible, partition 0, maxUnavailable 1, maxSurge 0',
        '',
        'Next actions:',
        '  TARGET                       ACTION           REVISION   WHY',
        '  web-p3                       updateInPlace    web-bbb    images main=web:2',
        '  (new pod)                    create           web-bbb    3 of 4 replicas; instance id drawn by the controller',
        '  controllerrevision/web-old   deleteRevision   -          beyond revisionHistoryLimit',
        'Waiting for:',
        '  maxUnavailable    web-p2: waiting for the maxUnavailable budget (1 pod(s)); taken by this pass: web-p3',
        '  minReadySeconds   web-p1: Ready for 2s of minReadySeconds 5; available in 3s',
        '',
        'The controller plans again in 3s even if nothing changes.',
        '',
        'Notes:',
        '  terminating, no longer counted: web-p9',
        '',
      ].join('\n'),
    );
  });

  it('a paused CloneSet: what resuming would do, indented under it', () => {
    const report: PlanReport = {
      ...base,
      cloneSet: { ...base.cloneSet, updateStrategy: { ...base.cloneSet.updateStrategy, paused: true, partition: 2 } },
      waits: [{ kind: 'paused', pods: ['web-p0', 'web-p1'], message: 'web-p0, web-p1: spec.updateStrategy.paused is true; no pod is updated until the rollout resumes' }],
      onResume: {
        actions: [{ action: 'updateInPlace', pod: 'web-p1', revision: 'web-bbb', reason: 'images main=web:2' }],
        errors: [],
        waits: [{ kind: 'partition', partition: 2, pods: ['web-p0'], byRevision: { 'web-aaa': ['web-p0'] }, message: 'partition 2 keeps web-p0 at revision web-aaa' }],
      },
    };
    expect(planText(report)).toBe(
      [
        'clone/web in prod: 4 replicas, 4 pods (0 updated, 4 ready, 4 available)',
        'update revision web-bbb, current web-aaa; pods by revision: web-aaa: 4',
        'strategy: InPlaceIfPossible, partition 2, maxUnavailable 1, maxSurge 0, paused',
        '',
        'Next actions: none',
        'Waiting for:',
        '  paused   web-p0, web-p1: spec.updateStrategy.paused is true; no pod is updated until the rollout resumes',
        '',
        'On resume (kubectl cloneset rollout resume clone/web), the next pass would:',
        '  Next actions:',
        '    TARGET   ACTION          REVISION   WHY',
        '    web-p1   updateInPlace   web-bbb    images main=web:2',
        '  Waiting for:',
        '    partition   partition 2 keeps web-p0 at revision web-aaa',
        '',
      ].join('\n'),
    );
  });
});
