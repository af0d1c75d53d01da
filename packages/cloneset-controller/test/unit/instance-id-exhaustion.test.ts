// Id allocation ends, whatever is taken. When no free id can be found the
// CloneSet creates what it could and says so (FailedScale, a Warning), instead of drawing
// forever and blocking the event loop (and with it the webhooks).
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { ID_SPACE, allocateInstanceIds } from '../../src/core/scale/instance-ids.ts';
import { planScale } from '../../src/core/scale/scale-plan.ts';
import { cloneSet, ctxFor, onConditions, pod, seededRandom } from './fixtures.ts';

/** A random source that gives up (throws) long after a bounded allocation would have. */
function guardedRandom(seed: number, maxCalls = 200_000): { random: () => number; calls: () => number } {
  const inner = seededRandom(seed);
  let n = 0;
  return {
    random: () => {
      if (++n > maxCalls) throw new Error(`allocation did not end after ${maxCalls} draws`);
      return inner();
    },
    calls: () => n,
  };
}

const foreign = (name: string): V1Pod => pod({ name, owner: 'none' });

describe('instance id allocation when no id is free', () => {
  it('ends with the ids it found and says it ran out', () => {
    const r = guardedRandom(1);
    const started = performance.now();
    const alloc = allocateInstanceIds({ csName: 'cs', count: 3, pods: [], pvcs: [], disableReuse: false, random: r.random, podNamed: foreign });
    expect(alloc.ids).toEqual([]);
    expect(alloc.exhausted).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('a space with few free ids still allocates them (no false exhaustion at 90% taken)', () => {
    const r = guardedRandom(2);
    const held = (name: string) => (Number.parseInt(name.slice(-2), 36) % 10 === 0 ? undefined : foreign(name));
    const alloc = allocateInstanceIds({ csName: 'cs', count: 20, pods: [], pvcs: [], disableReuse: false, random: r.random, podNamed: held });
    expect(alloc.ids).toHaveLength(20);
    expect(alloc.exhausted).toBe(false);
  });

  it('the space is 27^5 ids', () => {
    expect(ID_SPACE).toBe(14_348_907);
  });

  it('scale-out creates none, with FailedScale and a Warning that say the ids ran out', () => {
    const ctx = { ...ctxFor(cloneSet({ replicas: 2 }), [], { podNamed: foreign }), random: guardedRandom(3).random };
    const plan = planScale(ctx);
    expect(plan.actions.filter((a) => a.kind === 'createPod')).toEqual([]);
    expect(plan.actions).toContainEqual(expect.objectContaining({ kind: 'event', type: 'Warning', reason: 'InstanceIdsExhausted' }));
    expect(onConditions(plan.waits)).toEqual([{ condition: 'FailedScale', message: expect.stringMatching(/no free instance id for 2 of 2 new pods/) }]);
  });
});
