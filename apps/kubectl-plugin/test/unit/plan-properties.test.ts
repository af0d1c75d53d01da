// Invariants of `plan` over generated rollouts: nothing waits silently (every pod not yet at the
// update revision is acted on or named by a wait), a pod the pass moves is never said to wait for
// the budget or the partition, and only pods that exist are named.
import { FEATURE_GATE_DEFAULTS } from '@cloneset-suite/cloneset-controller';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planReport, type PassReport } from '../../src/core/plan-report.ts';
import { NOW, rollout } from './plan-fixtures.ts';

const nanos = `${BigInt(NOW - 30_000) * 1_000_000n}`;
const inPreCheck = {
  'operating.podopslifecycle.kusionstack.io/cloneset': nanos,
  'operation-type.podopslifecycle.kusionstack.io/cloneset': 'update',
  'pre-check.podopslifecycle.kusionstack.io/cloneset': nanos,
};

const scenario = fc.record({
  count: fc.integer({ min: 1, max: 6 }),
  partition: fc.integer({ min: 0, max: 6 }),
  maxUnavailable: fc.integer({ min: 1, max: 6 }),
  type: fc.constantFrom('InPlaceIfPossible', 'ReCreate'),
  paused: fc.boolean(),
  controlled: fc.boolean(),
  minReadySeconds: fc.constantFrom(0, 20),
  pods: fc.array(fc.record({ ready: fc.boolean(), readyForSeconds: fc.integer({ min: 0, max: 60 }), inPreCheck: fc.boolean(), updated: fc.boolean() }), { minLength: 6, maxLength: 6 }),
});

const MOVES = new Set(['updateInPlace', 'recreate', 'delete', 'beginOperation']);

function check(pass: PassReport, podNames: ReadonlySet<string>, behind: readonly string[]): void {
  const named = new Set(pass.waits.flatMap((w) => ('pods' in w ? w.pods : [])));
  const acted = new Set(pass.actions.flatMap((a) => (a.pod ? [a.pod] : [])));
  for (const name of behind) expect(acted.has(name) || named.has(name), `${name} is neither acted on nor waiting`).toBe(true);
  const moved = new Set(pass.actions.filter((a) => MOVES.has(a.action)).flatMap((a) => (a.pod ? [a.pod] : [])));
  for (const w of pass.waits.filter((w) => w.kind === 'maxUnavailable' || w.kind === 'partition')) {
    for (const name of 'pods' in w ? w.pods : []) expect(moved.has(name), `${name} moves and waits for ${w.kind}`).toBe(false);
  }
  for (const name of [...named, ...pass.actions.filter((a) => a.action !== 'create').flatMap((a) => (a.pod ? [a.pod] : []))]) expect(podNames.has(name), name).toBe(true);
}

describe('plan over generated rollouts', () => {
  it('nothing waits silently, moved pods do not wait, and only existing pods are named', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const r = rollout({
          count: s.count,
          replicas: s.count,
          controlled: s.controlled,
          minReadySeconds: s.minReadySeconds,
          updateStrategy: { type: s.type, partition: Math.min(s.partition, s.count), maxUnavailable: s.maxUnavailable, paused: s.paused },
          pod: (i) => {
            const p = s.pods[i]!;
            return { ready: p.ready, readyForSeconds: p.readyForSeconds, ...(s.controlled && p.inPreCheck ? { labels: inPreCheck } : {}) };
          },
        });
        // Some pods already at the update revision: a rollout part way through.
        r.pods.forEach((p, i) => {
          if (s.pods[i]!.updated) {
            p.metadata!.labels!['controller-revision-hash'] = r.update;
            p.metadata!.labels!['pod-template-hash'] = r.update.slice(r.update.lastIndexOf('-') + 1);
          }
        });
        const report = planReport(r.input(), { gates: { ...FEATURE_GATE_DEFAULTS } });
        const names = new Set(r.pods.map((p) => p.metadata!.name!));
        const behind = r.pods.filter((p) => p.metadata!.labels!['controller-revision-hash'] !== r.update).map((p) => p.metadata!.name!);
        check(report, names, behind);
        if (report.onResume) check(report.onResume, names, behind);
        if (report.settled) expect(behind).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
