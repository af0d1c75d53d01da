import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { updateDiffs } from '../../src/core/update/step-diffs.ts';
import { planUpdate } from '../../src/core/update/update-plan.ts';
import { isAvailable, isPodAtRevision, isPreparingDelete } from '../../src/core/pods/pod-state.ts';
import { cloneSet, ctxFor, pod, NOW } from './fixtures.ts';

const podArb = fc.record({
  rev: fc.constantFrom('cs-old', 'cs-new'),
  ready: fc.boolean(),
  state: fc.constantFrom('Normal', 'Normal', 'Updating', 'PreparingDelete', 'PreparingUpdate'),
  readySinceSec: fc.integer({ min: 0, max: 60 }),
});

describe('update planner properties', () => {
  it('never exceeds updateMaxUnavailable, |updateNum| or R - partition, never touches PreparingDelete pods', () => {
    fc.assert(
      fc.property(
        fc.array(podArb, { maxLength: 12 }),
        fc.record({
          replicas: fc.integer({ min: 0, max: 10 }),
          partition: fc.integer({ min: 0, max: 10 }),
          maxUnavailable: fc.integer({ min: 0, max: 4 }),
          maxSurge: fc.integer({ min: 0, max: 2 }),
          type: fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'),
          minReadySeconds: fc.constantFrom(0, 30),
          rollback: fc.boolean(),
        }),
        (podSpecs, s) => {
          const pods: V1Pod[] = podSpecs.map((p) => pod({ ...p, labels: { 'pod-template-hash': p.rev.slice(3) } }));
          const cs = cloneSet({
            replicas: s.replicas,
            minReadySeconds: s.minReadySeconds,
            updateStrategy: { type: s.type, partition: s.partition, maxUnavailable: s.maxUnavailable, maxSurge: s.type === 'InPlaceOnly' ? 0 : s.maxSurge },
          });
          const ctx = ctxFor(cs, pods, { gates: { CloneSetPartitionRollback: s.rollback } });
          const d = updateDiffs(ctx);
          const plan = planUpdate(ctx);
          const touched = new Set(
            plan.actions
              .filter((a) => a.kind === 'inPlaceUpdate' || (a.kind === 'patchPod' && (a.reason === 'RecreateUpdate' || a.lifecycle?.to === 'PreparingUpdate')))
              .map((a) => ('name' in a ? a.name : '')),
          );
          const byName = new Map(pods.map((p) => [p.metadata!.name!, p]));
          const chosen = [...touched].map((n) => byName.get(n)!);
          expect(chosen.some(isPreparingDelete)).toBe(false);
          expect(chosen.length).toBeLessThanOrEqual(Math.abs(d.updateNum));
          const avail = (p: V1Pod) => isAvailable(p, s.minReadySeconds, NOW);
          const before = pods.filter((p) => !avail(p)).length;
          const after = before + chosen.filter(avail).length;
          expect(after).toBeLessThanOrEqual(Math.max(before, d.updateMaxUnavailable));
          // With surplus pods the Scale step removes them first; the bound is about a settled count.
          if (d.updateNum > 0 && pods.length <= s.replicas) {
            const P = Math.min(s.partition, s.replicas);
            const newBefore = pods.filter((p) => !isPreparingDelete(p) && isPodAtRevision(p, 'cs-new')).length;
            expect(newBefore + chosen.length).toBeLessThanOrEqual(Math.max(s.replicas - P, newBefore));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
