// Nothing waits silently: over generated rollouts, every pod behind the update revision is
// either acted on by the pass or named by one of its waits, and the waits name only pods that
// exist. The waits are the planner's own (made where each step decides to wait).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { revisionNameOf } from '../../src/core/context.ts';
import { isPodAtRevision } from '../../src/core/pods/pod-state.ts';
import { podsOf } from '../../src/core/wait.ts';
import { cloneSet, pod, reconcileWith, templateWithImage } from './fixtures.ts';

const podArb = fc.record({
  rev: fc.constantFrom('cs-old', 'cs-new'),
  ready: fc.boolean(),
  readySinceSec: fc.integer({ min: 0, max: 60 }),
  state: fc.constantFrom('Normal', 'Normal', 'Normal', 'PreparingUpdate', 'Updated'),
});

describe('planReconcile: nothing waits silently', () => {
  it('every pod behind the update revision is acted on or named by a wait', () => {
    fc.assert(
      fc.property(
        fc.array(podArb, { minLength: 1, maxLength: 8 }),
        fc.record({
          partition: fc.integer({ min: 0, max: 8 }),
          maxUnavailable: fc.integer({ min: 1, max: 4 }),
          type: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'OnDelete'),
          paused: fc.boolean(),
          minReadySeconds: fc.constantFrom(0, 30),
        }),
        (specs, s) => {
          const pods: V1Pod[] = specs.map((p, i) => pod({ ...p, name: `cs-p${i}`, id: `p${i}`, labels: { 'pod-template-hash': p.rev.slice(3) } }));
          const cs = cloneSet({
            replicas: pods.length,
            minReadySeconds: s.minReadySeconds,
            template: templateWithImage('nginx:1'),
            updateStrategy: { type: s.type, partition: Math.min(s.partition, pods.length), maxUnavailable: s.maxUnavailable, paused: s.paused },
          });
          const plan = reconcileWith(cs, pods);
          const update = revisionNameOf(plan.revisions.updateRevision);
          const named = new Set(plan.waits.flatMap(podsOf));
          const acted = new Set(plan.actions.flatMap((a) => (a.kind !== 'event' && 'name' in a ? [a.name] : [])));
          const names = new Set(pods.map((p) => p.metadata!.name!));
          for (const p of pods) {
            const name = p.metadata!.name!;
            if (!isPodAtRevision(p, update)) expect(acted.has(name) || named.has(name), `${name} is neither acted on nor waiting`).toBe(true);
          }
          for (const name of named) expect(names.has(name), name).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
