import type { CloneSet } from '@cloneset-suite/api-types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rolloutState, type RolloutState } from '../../src/core/rollout-status.ts';

type Status = NonNullable<CloneSet['status']>;

function cloneSet(spec: Partial<CloneSet['spec']>, status: Partial<Status> | undefined, generation = 2): CloneSet {
  return {
    metadata: { name: 'web', generation },
    spec: { selector: { matchLabels: { app: 'web' } }, template: {}, replicas: 4, ...spec },
    ...(status
      ? { status: { observedGeneration: 2, replicas: 4, readyReplicas: 4, availableReplicas: 4, updatedReplicas: 4, updatedReadyReplicas: 4, updatedAvailableReplicas: 4, ...status } }
      : {}),
  };
}

describe('rolloutState', () => {
  const cases: [string, CloneSet, RolloutState][] = [
    ['no status yet', cloneSet({}, undefined), { kind: 'waiting', message: 'Waiting for clone spec update to be observed...' }],
    ['spec not observed', cloneSet({}, { observedGeneration: 1 }), { kind: 'waiting', message: 'Waiting for clone spec update to be observed...' }],
    [
      'pods being updated',
      cloneSet({}, { updatedReplicas: 1, updatedAvailableReplicas: 1 }),
      { kind: 'waiting', message: 'Waiting for clone "web" rollout to finish: 1 out of 4 new replicas have been updated...' },
    ],
    [
      'surge pods pending termination',
      cloneSet({}, { replicas: 5 }),
      { kind: 'waiting', message: 'Waiting for clone "web" rollout to finish: 1 old replicas are pending termination...' },
    ],
    [
      'updated pods not yet available',
      cloneSet({}, { updatedAvailableReplicas: 3 }),
      { kind: 'waiting', message: 'Waiting for clone "web" rollout to finish: 3 of 4 updated replicas are available...' },
    ],
    [
      'availability falls back to updatedReadyReplicas',
      cloneSet({}, { updatedAvailableReplicas: undefined, updatedReadyReplicas: 2 }),
      { kind: 'waiting', message: 'Waiting for clone "web" rollout to finish: 2 of 4 updated replicas are available...' },
    ],
    ['done', cloneSet({}, {}), { kind: 'done', message: 'clone "web" successfully rolled out' }],
    [
      'partitioned, pods being updated (status count)',
      cloneSet({ updateStrategy: { partition: 1 } }, { expectedUpdatedReplicas: 3, updatedReplicas: 1, updatedAvailableReplicas: 1 }),
      { kind: 'waiting', message: 'Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated...' },
    ],
    [
      'partitioned by percentage without the status count',
      cloneSet({ updateStrategy: { partition: '50%' } }, { updatedReplicas: 1, updatedAvailableReplicas: 1 }),
      { kind: 'waiting', message: 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...' },
    ],
    [
      'partitioned and done: old pods are not pending termination',
      cloneSet({ updateStrategy: { partition: 2 } }, { expectedUpdatedReplicas: 2, updatedReplicas: 2, updatedAvailableReplicas: 2 }),
      { kind: 'done', message: 'partitioned roll out complete: 2 new pods have been updated...' },
    ],
    [
      'partition of every pod: nothing to update',
      cloneSet({ updateStrategy: { partition: 4 } }, { expectedUpdatedReplicas: 0, updatedReplicas: 0, updatedAvailableReplicas: 0 }),
      { kind: 'done', message: 'partitioned roll out complete: 0 new pods have been updated...' },
    ],
    [
      // The controller counts a partition it cannot read as none to update: so does the plugin.
      'an invalid partition without the status count (it bypassed admission)',
      cloneSet({ updateStrategy: { partition: 'ten' } }, { updatedReplicas: 0, updatedAvailableReplicas: 0 }),
      { kind: 'done', message: 'partitioned roll out complete: 0 new pods have been updated...' },
    ],
    [
      'progress deadline exceeded',
      cloneSet({}, { updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'CloneSet revision web-1 has timed out progressing' }] }),
      {
        kind: 'failed',
        message: 'clone "web" exceeded its progress deadline (condition Progressing=False, reason ProgressDeadlineExceeded: CloneSet revision web-1 has timed out progressing)',
      },
    ],
    [
      'progressing while pods update',
      cloneSet({}, { updatedReplicas: 3, updatedAvailableReplicas: 3, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' }] }),
      { kind: 'waiting', message: 'Waiting for clone "web" rollout to finish: 3 out of 4 new replicas have been updated...' },
    ],
  ];
  it.each(cases)('%s', (_, cs, expected) => {
    expect(rolloutState(cs)).toEqual(expected);
  });

  it('is done only when every expected pod is updated and available and no extra pod is left', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.nat(20), fc.nat(25), fc.nat(20), fc.nat(20), (replicas, partition, total, updated, available) => {
        const cs = cloneSet({ replicas, updateStrategy: { partition } }, { replicas: total, updatedReplicas: updated, updatedAvailableReplicas: available, expectedUpdatedReplicas: undefined });
        const expected = Math.max(replicas - partition, 0);
        const done = rolloutState(cs).kind === 'done';
        const extra = total - (expected < replicas ? replicas : updated);
        expect(done).toBe(updated >= expected && available >= expected && extra <= 0);
      }),
    );
  });
});
