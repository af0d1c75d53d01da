import { describe, expect, it } from 'vitest';
import type { PodTransitionRuleStatus, TransitionRule } from '@cloneset-suite/api-types';
import { planRound, type EvaluatePlan, type RoundInput } from '../../src/core/round.ts';
import { statusChanged } from '../../src/core/results.ts';
import { pod, ptr, type TestPod } from './fixtures.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const avail: TransitionRule = { name: 'avail', availablePolicy: { maxUnavailableValue: 1 } };
const label: TransitionRule = { name: 'label', labelCheck: { requires: { matchLabels: { ready: 'true' } } } };
const hook: TransitionRule = { name: 'hook', webhook: { clientConfig: { url: 'http://hook/check' } } };
const post: TransitionRule = { name: 'post', stage: 'PostCheck', labelCheck: { requires: { matchLabels: { warm: 'true' } } } };

function evaluate(rules: TransitionRule[], pods: TestPod[], status?: PodTransitionRuleStatus, over: Partial<RoundInput> = {}): EvaluatePlan {
  const plan = planRound({ ptr: ptr(rules, status), pods, runtime: () => ({ polls: new Map() }), nowMs: NOW, newTraceId: () => 'T', ...over });
  if (plan.kind !== 'evaluate') throw new Error('expected an evaluation');
  return plan;
}

describe('planRound: the stage processor', () => {
  it('rules run in order and a pod rejected by one is not shown to later rules (no webhook call for it)', () => {
    const pods = [pod('a', { stage: 'PreCheck', enteredAt: 1, labels: { ready: 'true' } }), pod('b', { stage: 'PreCheck', enteredAt: 2, labels: { ready: 'true' } }), pod('c', { stage: 'PreCheck', enteredAt: 3 })];
    const plan = evaluate([hook, label, avail], pods);
    expect(plan.status.details).toEqual([
      { name: 'a', stage: 'PreCheck', passed: false, passedRules: ['avail', 'label'], rejectInfo: [{ ruleName: 'hook', reason: 'waiting for webhook response, traceId T' }] },
      { name: 'b', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'avail', reason: '[avail] blocked by max unavailable policy: [max unavailable]=1/3, [current unavailable]=1/3' }] },
      { name: 'c', stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'avail', reason: '[avail] blocked by max unavailable policy: [max unavailable]=1/3, [current unavailable]=1/3' }] },
    ]);
    const sent = plan.actions.find((a) => a.type === 'startPost');
    expect(sent?.type === 'startPost' && sent.body.resources.map((r) => r.name)).toEqual(['a']);
  });

  it('a skipped pod passes through to later rules; a pod of the other stage only meets that stage’s rules', () => {
    const skip = { 'podtransitionrule.kusionstack.io/skip-rule-conditions': '{"skipRules":["label"]}' };
    const pods = [pod('s', { stage: 'PreCheck', annotations: skip }), pod('w', { stage: 'PostCheck', labels: { warm: 'true' } }), pod('idle')];
    const plan = evaluate([label, post], pods);
    expect(plan.status.targets).toEqual(['idle', 's', 'w']);
    expect(plan.status.details).toEqual([
      { name: 's', stage: 'PreCheck', passed: true },
      { name: 'w', stage: 'PostCheck', passed: true, passedRules: ['post'] },
    ]);
  });

  it('a PodTransitionRule with no rule for the stage still writes a passing detail', () => {
    const plan = evaluate([post], [pod('a', { stage: 'PreCheck' })]);
    expect(plan.status.details).toEqual([{ name: 'a', stage: 'PreCheck', passed: true }]);
  });

  it('approval is sticky while the pod stays in the stage, and forgotten when it changes stage', () => {
    const previous: PodTransitionRuleStatus = { observedGeneration: 1, targets: ['a', 'b'], details: [{ name: 'a', stage: 'PreCheck', passed: true, passedRules: ['label'] }], ruleStates: [] };
    const sticky = evaluate([label], [pod('a', { stage: 'PreCheck' }), pod('b')], previous);
    expect(sticky.status.details?.[0]).toEqual({ name: 'a', stage: 'PreCheck', passed: true, passedRules: ['label'] });
    const moved = evaluate([{ ...label, stage: 'PostCheck' }], [pod('a', { stage: 'PostCheck' })], previous);
    expect(moved.status.details?.[0]?.passed).toBe(false);
  });
});

describe('planRound: results (rule status and pod annotation)', () => {
  const pods = [pod('a', { stage: 'PreCheck' }), pod('b'), pod('other', { labels: { app: 'db' } })];

  it('writes status only when targets, details, ruleStates or observedGeneration change', () => {
    const first = evaluate([label], pods);
    expect(first.writeStatus).toBe(true);
    expect(first.status.updateTime).toBe('2026-01-01T00:00:00.000Z');
    const again = evaluate([label], pods, { ...first.status, updateTime: 'earlier' }, { nowMs: NOW + 60_000 });
    expect(again.writeStatus).toBe(false);
    expect(again.status.updateTime).toBe('earlier');
  });

  it('a poll that only moved a running task\'s lastTime is no change worth a write', () => {
    const running = (lastTime: string, approved: string[]): PodTransitionRuleStatus => ({
      observedGeneration: 1,
      targets: ['a'],
      details: [],
      ruleStates: [{ name: 'hook', webhookStatus: { taskStates: [{ taskId: 'T', processing: ['a'], approved, beginTime: 'b', lastTime }] } }],
    });
    expect(statusChanged(running('t1', []), running('t2', []))).toBe(false);
    expect(statusChanged(running('t1', []), running('t2', ['b']))).toBe(true);
  });

  it('annotates every selected pod with its detail, and removes it from pods no longer selected', () => {
    const stale = { 'detail.podtransitionrule.kusionstack.io/ptr': '{"stage":"Unknown","passed":true}' };
    const plan = evaluate([label], [...pods, pod('left', { labels: { app: 'gone' }, annotations: stale })], { targets: ['a', 'b', 'left'] });
    expect(plan.annotations).toEqual([
      { pod: 'a', key: 'detail.podtransitionrule.kusionstack.io/ptr', value: JSON.stringify({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'label', reason: 'block by label check policy, pod ns/a labels not match ready=true' }] }) },
      { pod: 'b', key: 'detail.podtransitionrule.kusionstack.io/ptr', value: '{"stage":"Unknown","passed":true}' },
      { pod: 'left', key: 'detail.podtransitionrule.kusionstack.io/ptr', value: undefined },
    ]);
  });

  it('adds the protection finalizer when missing', () => {
    const plan = planRound({ ptr: ptr([label], undefined, { finalizers: [] }), pods, runtime: () => ({ polls: new Map() }), nowMs: NOW, newTraceId: () => 'T' });
    expect(plan.kind === 'evaluate' && plan.addFinalizer).toBe(true);
    expect(evaluate([label], pods).addFinalizer).toBe(false);
  });

  it('an invalid rule is reported as an error with the pods rejected', () => {
    const plan = evaluate([{ name: 'bad', availablePolicy: { maxUnavailableValue: 'lots' } }], pods);
    expect(plan.errors).toEqual([expect.stringMatching(/^rule bad: invalid available policy/)]);
    expect(plan.status.details?.[0]?.passed).toBe(false);
  });
});

describe('planRound: deletion', () => {
  it('removes the detail annotation from targeted pods, then the finalizer', () => {
    const annotated = { 'detail.podtransitionrule.kusionstack.io/ptr': '{}' };
    const deleting = ptr([label], { targets: ['a', 'b', 'gone'] }, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    const plan = planRound({ ptr: deleting, pods: [pod('a', { annotations: annotated }), pod('b')], runtime: () => ({ polls: new Map() }), nowMs: NOW, newTraceId: () => 'T' });
    expect(plan).toEqual({ kind: 'cleanup', annotations: [{ pod: 'a', key: 'detail.podtransitionrule.kusionstack.io/ptr', value: undefined }], removeFinalizer: true });
  });
});
