import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AvailablePolicy, IntOrString } from '@cloneset-suite/api-types';
import { evaluateAvailablePolicy, maxUnavailableQuota, minAvailableQuota } from '../../src/core/available-policy.ts';
import { byStageEntry } from '../../src/core/stage.ts';
import { pod, type TestPod } from './fixtures.ts';

describe('quotas: maxUnavailableValue rounds down with a floor of 1, minAvailableValue rounds up', () => {
  it.each<[IntOrString | undefined, number, number]>([
    [undefined, 7, 7],
    [2, 7, 2],
    ['50%', 7, 3],
    ['50%', 8, 4],
    ['10%', 5, 1],
    ['1%', 0, 1],
  ])('maxUnavailableValue %j of %i -> %i (percent rounds down, at least 1)', (v, n, q) => expect(maxUnavailableQuota(v, n)).toBe(q));

  it.each<[IntOrString | undefined, number, number]>([
    [undefined, 7, 0],
    [3, 7, 3],
    ['50%', 7, 4],
    ['10%', 5, 1],
    ['0%', 5, 0],
  ])('minAvailableValue %j of %i -> %i (percent rounds up)', (v, n, q) => expect(minAvailableQuota(v, n)).toBe(q));
});

function run(policy: AvailablePolicy, selected: TestPod[], subjects: TestPod[], passed: string[] = []) {
  return evaluateAvailablePolicy({ ruleName: 'avail', policy, selected, subjects: [...subjects].sort(byStageEntry('PreCheck')), passedBefore: (n) => passed.includes(n) });
}

describe('evaluateAvailablePolicy', () => {
  it('approves the pods that entered the stage first, up to the quota, and says why the rest wait', () => {
    const pods = [pod('d', { stage: 'PreCheck', enteredAt: 4 }), pod('a', { stage: 'PreCheck', enteredAt: 2 }), pod('c', { stage: 'PreCheck', enteredAt: 1 }), pod('b')];
    const out = run({ maxUnavailableValue: '50%' }, pods, pods.slice(0, 3));
    expect(out.passed).toEqual(['c', 'a']);
    expect(out.rejected.get('d')).toBe('[avail] blocked by max unavailable policy: [max unavailable]=2/4, [current unavailable]=2/4');
  });

  it('unavailable pods pass for free and use the quota; earlier approvals are sticky and use it too', () => {
    const down = pod('down', { stage: 'PreCheck', available: false });
    const old = pod('old', { stage: 'PreCheck', enteredAt: 9 });
    const fresh = pod('fresh', { stage: 'PreCheck', enteredAt: 1 });
    const out = run({ maxUnavailableValue: 2 }, [down, old, fresh, pod('x')], [down, old, fresh], ['old']);
    expect(out.passed.sort()).toEqual(['down', 'old']);
    expect([...out.rejected.keys()]).toEqual(['fresh']);
  });

  it('minAvailableValue keeps enough pods available', () => {
    const pods = ['a', 'b', 'c', 'd'].map((n, i) => pod(n, { stage: 'PreCheck', enteredAt: i }));
    const out = run({ minAvailableValue: '75%' }, pods, pods);
    expect(out.passed).toEqual(['a']);
    expect(out.rejected.get('b')).toBe('blocked by min available policy: [min available]=3/4, [current keep available]=3/4');
  });

  it('an invalid value rejects every pod and is a rule error', () => {
    const p = pod('a', { stage: 'PreCheck' });
    const out = run({ maxUnavailableValue: 'half' }, [p], [p]);
    expect(out.passed).toEqual([]);
    expect(out.error).toMatch(/rule avail: invalid available policy/);
  });
});

// The model of a rollout: pods join and leave, enter the stage, move on once approved (and are
// then unavailable until they come back), or fail on their own.
type Step =
  | { kind: 'add' }
  | { kind: 'remove'; i: number }
  | { kind: 'enter'; i: number }
  | { kind: 'moveOn'; i: number }
  | { kind: 'recover'; i: number }
  | { kind: 'fail'; i: number };

interface SimPod {
  name: string;
  available: boolean;
  inStage: boolean;
  approved: boolean;
  enteredAt: number;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'add' }),
  fc.nat().map<Step>((i) => ({ kind: 'remove', i })),
  fc.nat().map<Step>((i) => ({ kind: 'enter', i })),
  fc.nat().map<Step>((i) => ({ kind: 'enter', i })),
  fc.nat().map<Step>((i) => ({ kind: 'moveOn', i })),
  fc.nat().map<Step>((i) => ({ kind: 'recover', i })),
  fc.nat().map<Step>((i) => ({ kind: 'fail', i })),
);

const valueArb = (min: number): fc.Arbitrary<IntOrString> => fc.oneof(fc.integer({ min, max: 8 }), fc.integer({ min: Math.max(min, 1), max: 100 }).map((p) => `${p}%`));

describe('availablePolicy never approves more pods than the quota allows (property)', () => {
  it('over any sequence of rounds with pods entering and leaving', () => {
    fc.assert(
      fc.property(
        fc.record({ max: fc.option(valueArb(1), { nil: undefined }), min: fc.option(valueArb(0), { nil: undefined }) }),
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.array(stepArb, { maxLength: 4 }), { minLength: 1, maxLength: 25 }),
        ({ max, min }, initial, rounds) => {
          const policy: AvailablePolicy = { ...(max !== undefined ? { maxUnavailableValue: max } : {}), ...(min !== undefined || max === undefined ? { minAvailableValue: min ?? 0 } : {}) };
          let seq = 0;
          let clock = 0;
          const pods: SimPod[] = Array.from({ length: initial }, () => ({ name: `p${seq++}`, available: true, inStage: false, approved: false, enteredAt: 0 }));
          for (const steps of rounds) {
            for (const s of steps) {
              const p = pods.length > 0 && s.kind !== 'add' ? pods[s.i % pods.length]! : undefined;
              if (s.kind === 'add') pods.push({ name: `p${seq++}`, available: true, inStage: false, approved: false, enteredAt: 0 });
              else if (s.kind === 'remove' && p) pods.splice(pods.indexOf(p), 1);
              else if (s.kind === 'enter' && p && !p.inStage) Object.assign(p, { inStage: true, enteredAt: ++clock });
              else if (s.kind === 'moveOn' && p?.approved) Object.assign(p, { inStage: false, approved: false, available: false });
              else if (s.kind === 'recover' && p && !p.inStage && !p.available) p.available = true;
              else if (s.kind === 'fail' && p && !p.approved) p.available = false;
            }
            const selected = pods.map((p) => pod(p.name, { available: p.available, ...(p.inStage ? { stage: 'PreCheck' as const, enteredAt: p.enteredAt } : {}) }));
            const committedBefore = pods.filter((p) => !p.available || p.approved).length;
            const availableFree = pods.filter((p) => p.available && !p.approved).length;
            const out = run(policy, selected, selected.filter((_, i) => pods[i]!.inStage), pods.filter((p) => p.approved).map((p) => p.name));
            const passed = new Set(out.passed);
            const newlyApproved = pods.filter((p) => p.inStage && p.available && !p.approved && passed.has(p.name)).length;
            const maxQuota = maxUnavailableQuota(policy.maxUnavailableValue, pods.length);
            const minQuota = minAvailableQuota(policy.minAvailableValue, pods.length);
            expect(newlyApproved).toBeLessThanOrEqual(Math.max(0, maxQuota - committedBefore));
            if (newlyApproved > 0) expect(availableFree - newlyApproved).toBeGreaterThanOrEqual(minQuota);
            // Sticky: an approval is never withdrawn while the pod stays in the stage.
            for (const p of pods) if (p.approved) expect(passed.has(p.name)).toBe(true);
            for (const p of pods) if (p.inStage && passed.has(p.name)) p.approved = true;
            // Across rounds: approvals plus unavailable pods stay within the quota, unless they were already beyond it.
            const committedAfter = pods.filter((p) => !p.available || p.approved).length;
            expect(committedAfter).toBeLessThanOrEqual(Math.max(maxQuota, committedBefore));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
