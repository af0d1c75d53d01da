import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GoalTally, allCreated, allReadyOn, allScheduled, goalReached, someMatching, type PodGoal } from '../../src/pod-goal.ts';
import type { PodLike } from '../../src/pods.ts';

const pod = (o: { ready?: boolean; image?: string; node?: string; terminating?: boolean } = {}): PodLike => ({
  metadata: o.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {},
  spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: 'main', image: o.image ?? 'v1' }] },
  status: {
    conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }],
    containerStatuses: [{ name: 'main', image: o.image ?? 'v1' }],
  },
});

describe('goalReached', () => {
  it.each([
    { name: 'all Ready', goal: allReadyOn(2), pods: [pod({ ready: true }), pod({ ready: true })], want: true },
    { name: 'one not Ready', goal: allReadyOn(2), pods: [pod({ ready: true }), pod()], want: false },
    { name: 'a terminating pod is not counted', goal: allReadyOn(2), pods: [pod({ ready: true }), pod({ ready: true }), pod({ terminating: true })], want: true },
    { name: 'one too many', goal: allReadyOn(1), pods: [pod({ ready: true }), pod({ ready: true })], want: false },
    { name: 'Ready on the old image', goal: allReadyOn(1, 'v2'), pods: [pod({ ready: true })], want: false },
    { name: 'Ready on the new image', goal: allReadyOn(1, 'v2'), pods: [pod({ ready: true, image: 'v2' })], want: true },
    { name: 'created: at least', goal: allCreated(1), pods: [pod(), pod()], want: true },
    { name: 'scheduled: every live pod bound', goal: allScheduled(2), pods: [pod({ node: 'a' }), pod()], want: false },
    { name: 'scheduled', goal: allScheduled(2), pods: [pod({ node: 'a' }), pod({ node: 'b' }), pod({ terminating: true })], want: true },
    { name: 'some matching, whatever the others', goal: someMatching(1, (p) => p.spec?.containers?.[0]?.image === 'v2'), pods: [pod(), pod({ image: 'v2' })], want: true },
    { name: 'a terminating pod does not match', goal: someMatching(1, (p) => p.spec?.containers?.[0]?.image === 'v2'), pods: [pod(), pod({ image: 'v2', terminating: true })], want: false },
  ])('$name', ({ goal, pods, want }) => {
    expect(goalReached(goal, pods)).toBe(want);
  });
});

describe('GoalTally', () => {
  const goals: [string, PodGoal][] = [
    ['allReadyOn(3)', allReadyOn(3)],
    ['allReadyOn(2, v2)', allReadyOn(2, 'v2')],
    ['allCreated(2)', allCreated(2)],
    ['allScheduled(3)', allScheduled(3)],
    ['someMatching(2, Ready)', someMatching(2, (p) => p.status?.conditions?.[0]?.status === 'True')],
  ];
  const anyPod = fc.record({ ready: fc.boolean(), image: fc.constantFrom('v1', 'v2'), node: fc.constantFrom(undefined, 'a'), terminating: fc.boolean() });
  // A pod event: the pod under a key changes (or is gone).
  const event = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.option(anyPod, { nil: undefined }));

  it.each(goals)('%s: after any sequence of pod events, answers what walking every pod answers', (_, goal) => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const tally = new GoalTally(goal);
        const pods = new Map<string, PodLike>();
        for (const [key, o] of events) {
          const p = o && pod(o);
          if (p) pods.set(key, p);
          else pods.delete(key);
          tally.set(key, p);
          expect(tally.reached()).toBe(goalReached(goal, [...pods.values()]));
        }
      }),
    );
  });
});
