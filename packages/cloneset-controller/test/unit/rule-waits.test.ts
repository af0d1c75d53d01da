// A controlled pod the CloneSet began an operation on, held in PreCheck by a
// PodTransitionRule, is said on the CloneSet: which rule, how many pods, why.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { planReconcile, statusInputFor } from '../../src/core/reconcile-plan.ts';
import { transitionRuleWaits } from '../../src/core/lifecycle/rule-waits.ts';
import { preCheckRejections } from '../../src/core/lifecycle/rule-rejections.ts';
import { waitMessage } from '../../src/core/waits/wait-text.ts';
import { computeStatus } from '../../src/core/status/status.ts';
import { NOW, cloneSet, pod, seededRandom } from './fixtures.ts';

const TS = '1767225600000000000';
const DETAIL = 'detail.podtransitionrule.kusionstack.io/';
const REJECTED = JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'needs-approval', reason: 'label example.com/approved=true is missing' }] });

interface Opts {
  name: string;
  type?: string;
  /** Lifecycle labels of id cloneset beyond operating/operation-type. */
  stage?: 'pre-check' | 'pre-checked';
  controlled?: boolean;
  details?: Record<string, string>;
  deleting?: boolean;
}

function heldPod(o: Opts): V1Pod {
  const labels: Record<string, string> = {};
  if (o.controlled !== false) labels['kusionstack.io/control'] = 'true';
  if (o.type) {
    labels['operating.podopslifecycle.kusionstack.io/cloneset'] = TS;
    labels['operation-type.podopslifecycle.kusionstack.io/cloneset'] = o.type;
  }
  if (o.stage) labels['pre-check.podopslifecycle.kusionstack.io/cloneset'] = TS;
  if (o.stage === 'pre-checked') labels['pre-checked.podopslifecycle.kusionstack.io/cloneset'] = TS;
  const p = pod({ name: o.name, labels, deleting: !!o.deleting });
  p.metadata!.annotations = { ...p.metadata!.annotations, ...Object.fromEntries(Object.entries(o.details ?? {}).map(([k, v]) => [DETAIL + k, v])) };
  return p;
}

const held = (name: string, details: Record<string, string> = { approval: REJECTED }, type = 'update'): V1Pod => heldPod({ name, type, stage: 'pre-check', details });

describe('transitionRuleWaits', () => {
  it.each<[string, V1Pod[], string[][]]>([
    ['a pod in PreCheck rejected by a labelCheck', [held('cs-a')], [['PodTransitionRule approval rule needs-approval', '1 pod(s): cs-a', 'PreCheck', 'update', 'example.com/approved=true is missing']]],
    ['several pods, one rule: one hold counting them', [held('cs-b'), held('cs-a')], [['approval rule needs-approval', '2 pod(s): cs-a, cs-b']]],
    ['two rules: one hold each', [held('cs-a', { approval: REJECTED, quota: JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'max-one', reason: 'quota used' }] }) })], [['approval rule needs-approval'], ['quota rule max-one', 'quota used']]],
    ['a scale-in held the same way says so', [held('cs-a', undefined, 'scale-in')], [['for scale-in']]],
    ['a rejection without rejectInfo still names the rule', [held('cs-a', { approval: JSON.stringify({ stage: 'PreCheck', passed: false }) })], [['PodTransitionRule approval to pass 1 pod(s)']]],
    ['passed: nothing', [held('cs-a', { approval: JSON.stringify({ stage: 'PreCheck', passed: true }) })], []],
    ['a PostCheck rejection is not a PreCheck hold', [held('cs-a', { approval: JSON.stringify({ stage: 'PostCheck', passed: false }) })], []],
    ['already pre-checked (a stale detail): nothing', [heldPod({ name: 'cs-a', type: 'update', stage: 'pre-checked', details: { approval: REJECTED } })], []],
    ['no CloneSet operation on the pod: nothing', [heldPod({ name: 'cs-a', stage: 'pre-check', details: { approval: REJECTED } })], []],
    ['an uncontrolled pod: nothing', [heldPod({ name: 'cs-a', type: 'update', stage: 'pre-check', controlled: false, details: { approval: REJECTED } })], []],
    ['a terminating pod: nothing', [heldPod({ name: 'cs-a', type: 'update', stage: 'pre-check', deleting: true, details: { approval: REJECTED } })], []],
    ['an unreadable detail: nothing', [held('cs-a', { approval: '{not json' })], []],
  ])('%s', (_name, pods, expected) => {
    const holds = transitionRuleWaits({ pods });
    expect(holds.map((h) => h.kind)).toEqual(expected.map(() => 'podTransitionRule'));
    holds.forEach((h, i) => {
      for (const part of expected[i]!) expect(waitMessage(h)).toContain(part);
    });
  });

  it('preCheckRejections reads every rejection of every rule annotation', () => {
    expect(preCheckRejections(held('cs-a'))).toEqual([{ transitionRule: 'approval', rule: 'needs-approval', reason: 'label example.com/approved=true is missing' }]);
  });

  it('reaches the pass: PodsHeld True naming the rule, a WaitingForPodTransitionRule Event, no Failed* condition', () => {
    const cs = cloneSet({ replicas: 1 });
    const plan = planReconcile({ cs, pods: [held('cs-a')], pvcs: [], revisions: [], gates: {}, nowMs: NOW, random: seededRandom(1) });
    const events = plan.actions.flatMap((a) => (a.kind === 'event' && a.reason.startsWith('WaitingFor') ? [a] : []));
    expect(events.map((e) => `${e.type} ${e.reason}`)).toEqual(['Normal WaitingForPodTransitionRule']);
    expect(events[0]!.message).toContain('approval rule needs-approval');
    const { status } = computeStatus(statusInputFor(plan, [], NOW));
    const heldCondition = status.conditions?.find((c) => c.type === 'PodsHeld');
    expect(heldCondition).toMatchObject({ status: 'True', reason: 'PodTransitionRule', message: expect.stringContaining('1 pod(s): cs-a') });
    expect(status.conditions?.filter((c) => c.type.startsWith('Failed') && c.status === 'True')).toEqual([]);
  });
});
