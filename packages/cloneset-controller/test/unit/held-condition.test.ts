// Pods a hook or a rule holds are said on PodsHeld (never Failed*), with a Normal Event
// when a hold begins or changes, not on every pass while it lasts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { heldCondition, holdEvents } from '../../src/core/status/held-condition.ts';
import type { PodHold } from '../../src/core/plan.ts';
import { computeStatus, statusEquals, type StatusInput } from '../../src/core/status/status.ts';
import type { StatusCondition } from '../../src/core/types.ts';
import { NOW, cloneSet, pod } from './fixtures.ts';

const hook = (pods: string): PodHold => ({ kind: 'LifecycleHook', message: `waiting for lifecycle hook preDelete (finalizer f) to release ${pods}` });
const rule = (pods: string): PodHold => ({ kind: 'PodTransitionRule', message: `waiting for PodTransitionRule approval to pass ${pods}` });
const cond = (status: string, message?: string): StatusCondition => ({ type: 'PodsHeld', status, reason: 'LifecycleHook', ...(message ? { message } : {}) });

describe('heldCondition', () => {
  it.each<[string, PodHold[] | undefined, StatusCondition | undefined, ReturnType<typeof heldCondition>]>([
    ['not looked at: unchanged', undefined, cond('True', 'x'), undefined],
    ['nothing held, never was: no condition', [], undefined, undefined],
    ['nothing held, was False: unchanged', [], cond('False'), undefined],
    ['nothing held any more: False', [], cond('True', 'x'), { status: 'False', reason: 'Released', message: expect.any(String) as string }],
    ['a hook hold: True, reason LifecycleHook', [hook('1 pod(s): a')], undefined, { status: 'True', reason: 'LifecycleHook', message: hook('1 pod(s): a').message }],
    ['a rule and a hook: both said, reason of the first', [rule('1 pod(s): b'), hook('1 pod(s): a')], undefined, { status: 'True', reason: 'PodTransitionRule', message: `${rule('1 pod(s): b').message}; ${hook('1 pod(s): a').message}` }],
  ])('%s', (_name, holds, existing, expected) => {
    expect(heldCondition(holds, existing)).toEqual(expected);
  });
});

describe('holdEvents', () => {
  it.each<[string, PodHold[], StatusCondition | undefined, string[]]>([
    ['a new hold: one Normal Event', [hook('1 pod(s): a')], undefined, ['Normal WaitingForLifecycleHook']],
    ['the same hold already said: none', [hook('1 pod(s): a')], cond('True', hook('1 pod(s): a').message), []],
    ['other pods held: said again', [hook('2 pod(s): a, b')], cond('True', hook('1 pod(s): a').message), ['Normal WaitingForLifecycleHook']],
    ['a rule hold joins a said hook hold: only the rule', [hook('1 pod(s): a'), rule('1 pod(s): b')], cond('True', hook('1 pod(s): a').message), ['Normal WaitingForPodTransitionRule']],
    ['said before, released since (False): said again', [hook('1 pod(s): a')], cond('False', hook('1 pod(s): a').message), ['Normal WaitingForLifecycleHook']],
  ])('%s', (_name, holds, existing, expected) => {
    expect(holdEvents(holds, existing).map((e) => `${e.type} ${e.reason}`)).toEqual(expected);
  });

  it('property: once the condition says the holds, the same holds raise no Event; each hold it does not say raises one', () => {
    // Messages as the planners write them: none is a part of another (names end with " held").
    const holdArb = fc.record({ kind: fc.constantFrom('LifecycleHook' as const, 'PodTransitionRule' as const), message: fc.nat({ max: 20 }).map((n) => `waiting to release 1 pod(s): cs-${n} held; why`) });
    fc.assert(
      fc.property(fc.uniqueArray(holdArb, { selector: (h) => h.message, maxLength: 4 }), fc.uniqueArray(holdArb, { selector: (h) => h.message, maxLength: 4 }), (before, now) => {
        const said = heldCondition(before, undefined);
        const existing = said ? { type: 'PodsHeld', ...said } : undefined;
        expect(holdEvents(now, existing).map((e) => e.message)).toEqual(now.filter((h) => !before.some((b) => b.message === h.message)).map((h) => h.message));
        const next = heldCondition(now, existing);
        if (next?.status === 'True') expect(holdEvents(now, { type: 'PodsHeld', ...next })).toEqual([]);
      }),
    );
  });
});

describe('computeStatus: PodsHeld', () => {
  const input = (held: PodHold[] | undefined, conditions: StatusCondition[] = [], ps: V1Pod[] = [pod({ rev: 'cs-new' })]): StatusInput => ({
    cs: cloneSet({ replicas: ps.length }, { status: { conditions } }),
    pods: ps,
    updateRevision: 'cs-new',
    currentRevision: 'cs-new',
    collisionCount: 0,
    partition: 0,
    failures: { FailedScale: null, FailedUpdate: null },
    ...(held ? { held } : {}),
    nowMs: NOW,
  });
  const byType = (cs: StatusCondition[] | undefined, type: string) => cs?.find((c) => c.type === type);

  it('is True while held, with the message refreshed when other pods are held (transition time kept)', () => {
    const first = computeStatus(input([hook('1 pod(s): a')])).status;
    expect(byType(first.conditions, 'PodsHeld')).toMatchObject({ status: 'True', reason: 'LifecycleHook', message: hook('1 pod(s): a').message });
    const earlier = { ...byType(first.conditions, 'PodsHeld')!, lastTransitionTime: '2020-01-01T00:00:00Z' };
    const second = computeStatus(input([hook('2 pod(s): a, b')], [earlier])).status;
    expect(byType(second.conditions, 'PodsHeld')).toMatchObject({ status: 'True', message: hook('2 pod(s): a, b').message, lastTransitionTime: '2020-01-01T00:00:00Z' });
    expect(statusEquals({ ...second, conditions: [earlier] }, second)).toBe(false);
  });

  it('never sets FailedScale or FailedUpdate', () => {
    const s = computeStatus(input([hook('1 pod(s): a'), rule('1 pod(s): b')])).status;
    expect(s.conditions?.map((c) => c.type)).toEqual(['PodsHeld']);
  });

  it('goes False once released, and is left alone by a pass that did not look', () => {
    const held = cond('True', hook('1 pod(s): a').message);
    expect(byType(computeStatus(input([], [held])).status.conditions, 'PodsHeld')).toMatchObject({ status: 'False', reason: 'Released' });
    expect(byType(computeStatus(input(undefined, [held])).status.conditions, 'PodsHeld')).toEqual(held);
  });

  it('a settled status with the same holds writes nothing', () => {
    const s = computeStatus(input([hook('1 pod(s): a')])).status;
    const again = computeStatus({ ...input([hook('1 pod(s): a')], s.conditions), cs: cloneSet({ replicas: 1 }, { status: s }) }).status;
    expect(statusEquals(s, again)).toBe(true);
  });
});
