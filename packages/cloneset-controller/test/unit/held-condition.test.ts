// Pods a hook or a rule holds are said on PodsHeld (never Failed*), with a Normal Event
// when a hold begins or changes, not on every pass while it lasts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { heldCondition, holdEvents } from '../../src/core/status/held-condition.ts';
import type { Hold } from '../../src/core/wait.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';
import { computeStatus, statusEquals, type StatusInput } from '../../src/core/status/status.ts';
import type { StatusCondition } from '../../src/core/types.ts';
import { NOW, cloneSet, pod } from './fixtures.ts';

const hook = (...pods: string[]): Hold => ({ kind: 'lifecycleHook', hook: 'preDelete', state: 'PreparingDelete', pods, finalizers: ['f'], labels: {} });
const rule = (...pods: string[]): Hold => ({ kind: 'podTransitionRule', transitionRule: 'approval', rule: '', reason: '', stage: 'PreCheck', operationTypes: ['update'], pods });
const cond = (status: string, message?: string): StatusCondition => ({ type: 'PodsHeld', status, reason: 'LifecycleHook', message });

describe('heldCondition', () => {
  it.each<[string, Hold[] | undefined, StatusCondition | undefined, ReturnType<typeof heldCondition>]>([
    ['not looked at: unchanged', undefined, cond('True', 'x'), undefined],
    ['nothing held, never was: no condition', [], undefined, undefined],
    ['nothing held, was False: unchanged', [], cond('False'), undefined],
    ['nothing held any more: False', [], cond('True', 'x'), { status: 'False', reason: 'Released', message: expect.any(String) as string }],
    ['a hook hold: True, reason LifecycleHook', [hook('a')], undefined, { status: 'True', reason: 'LifecycleHook', message: waitMessage(hook('a')) }],
    ['a rule and a hook: both said, reason of the first', [rule('b'), hook('a')], undefined, { status: 'True', reason: 'PodTransitionRule', message: `${waitMessage(rule('b'))}; ${waitMessage(hook('a'))}` }],
  ])('%s', (_name, holds, existing, expected) => {
    expect(heldCondition(holds, existing)).toEqual(expected);
  });
});

describe('holdEvents', () => {
  it.each<[string, Hold[], StatusCondition | undefined, string[]]>([
    ['a new hold: one Normal Event', [hook('a')], undefined, ['Normal WaitingForLifecycleHook']],
    ['the same hold already said: none', [hook('a')], cond('True', waitMessage(hook('a'))), []],
    ['other pods held: said again', [hook('a', 'b')], cond('True', waitMessage(hook('a'))), ['Normal WaitingForLifecycleHook']],
    ['a rule hold joins a said hook hold: only the rule', [hook('a'), rule('b')], cond('True', waitMessage(hook('a'))), ['Normal WaitingForPodTransitionRule']],
    ['said before, released since (False): said again', [hook('a')], cond('False', waitMessage(hook('a'))), ['Normal WaitingForLifecycleHook']],
  ])('%s', (_name, holds, existing, expected) => {
    expect(holdEvents(holds, existing).map((e) => `${e.type} ${e.reason}`)).toEqual(expected);
  });

  it('property: once the condition says the holds, the same holds raise no Event; each hold it does not say raises one', () => {
    // Holds as the planners make them: no message is a part of another (names end with " held").
    const holdArb = fc.tuple(fc.constantFrom(hook, rule), fc.nat({ max: 20 })).map(([make, n]) => make(`cs-${n}`));
    fc.assert(
      fc.property(fc.uniqueArray(holdArb, { selector: waitMessage, maxLength: 4 }), fc.uniqueArray(holdArb, { selector: waitMessage, maxLength: 4 }), (before, now) => {
        const said = heldCondition(before, undefined);
        const existing = said ? { type: 'PodsHeld', ...said } : undefined;
        expect(holdEvents(now, existing).map((e) => e.message)).toEqual(now.filter((h) => !before.some((b) => waitMessage(b) === waitMessage(h))).map(waitMessage));
        const next = heldCondition(now, existing);
        if (next?.status === 'True') expect(holdEvents(now, { type: 'PodsHeld', ...next })).toEqual([]);
      }),
    );
  });
});

describe('computeStatus: PodsHeld', () => {
  const input = (held: Hold[] | undefined, conditions: StatusCondition[] = [], ps: V1Pod[] = [pod({ rev: 'cs-new' })]): StatusInput => ({
    cs: cloneSet({ replicas: ps.length }, { status: { conditions } }),
    pods: ps,
    updateRevision: 'cs-new',
    currentRevision: 'cs-new',
    collisionCount: 0,
    partition: 0,
    failures: { FailedScale: null, FailedUpdate: null },
    held,
    nowMs: NOW,
  });
  const byType = (cs: StatusCondition[] | undefined, type: string) => cs?.find((c) => c.type === type);

  it('is True while held, with the message refreshed when other pods are held (transition time kept)', () => {
    const first = computeStatus(input([hook('a')])).status;
    expect(byType(first.conditions, 'PodsHeld')).toMatchObject({ status: 'True', reason: 'LifecycleHook', message: waitMessage(hook('a')) });
    const earlier = { ...byType(first.conditions, 'PodsHeld')!, lastTransitionTime: '2020-01-01T00:00:00Z' };
    const second = computeStatus(input([hook('a', 'b')], [earlier])).status;
    expect(byType(second.conditions, 'PodsHeld')).toMatchObject({ status: 'True', message: waitMessage(hook('a', 'b')), lastTransitionTime: '2020-01-01T00:00:00Z' });
    expect(statusEquals({ ...second, conditions: [earlier] }, second)).toBe(false);
  });

  it('never sets FailedScale or FailedUpdate', () => {
    const s = computeStatus(input([hook('a'), rule('b')])).status;
    expect(s.conditions?.map((c) => c.type)).toEqual(['PodsHeld']);
  });

  it('goes False once released, and is left alone by a pass that did not look', () => {
    const held = cond('True', waitMessage(hook('a')));
    expect(byType(computeStatus(input([], [held])).status.conditions, 'PodsHeld')).toMatchObject({ status: 'False', reason: 'Released' });
    expect(byType(computeStatus(input(undefined, [held])).status.conditions, 'PodsHeld')).toEqual(held);
  });

  it('a settled status with the same holds writes nothing', () => {
    const s = computeStatus(input([hook('a')])).status;
    const again = computeStatus({ ...input([hook('a')], s.conditions), cs: cloneSet({ replicas: 1 }, { status: s }) }).status;
    expect(statusEquals(s, again)).toBe(true);
  });
});
