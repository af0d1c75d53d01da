import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PodTransitionRuleStatus, TransitionRule } from '@cloneset-suite/api-types';
import { planRound } from '../../src/core/round.ts';
import { utf8Bytes } from '../../src/core/reason-text.ts';
import { STATUS_BUDGET_BYTES, fitStatus } from '../../src/core/status-budget.ts';
import type { WebhookRuleRuntime } from '../../src/core/webhook-runtime.ts';
import { pod, ptr } from './fixtures.ts';

const size = (s: PodTransitionRuleStatus): number => utf8Bytes(JSON.stringify(s));
const held = (n: number, reason: string): PodTransitionRuleStatus => ({
  targets: Array.from({ length: n }, (_, i) => `pod-${i}`),
  details: Array.from({ length: n }, (_, i) => ({ name: `pod-${i}`, stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'hook', reason }] })),
  ruleStates: [{ name: 'hook', webhookStatus: { taskStates: [{ taskId: 't', processing: ['pod-0'], message: reason }] } }],
});

describe('fitStatus', () => {
  it('keeps a status within the budget as it is', () => {
    const small = held(3, 'busy');
    expect(fitStatus(small)).toBe(small);
  });

  it('2,000 held pods with 1 KiB reasons fit in 1 MiB once their reasons are cut shorter', () => {
    const big = held(2_000, 'r'.repeat(1_000));
    expect(size(big)).toBeGreaterThan(STATUS_BUDGET_BYTES);
    const fitted = fitStatus(big);
    expect(size(fitted)).toBeLessThanOrEqual(STATUS_BUDGET_BYTES);
    expect(fitted.details![0]!.rejectInfo![0]!.reason).toMatch(/^r+\.\.\. \[cut, 1000 bytes\]$/);
    expect(fitted.targets).toEqual(big.targets);
  });

  it('property: the result fits when the 64-byte texts would, keeps every name and verdict, and cuts texts only to their prefix', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 2_000, max: 40_000 }), (n, len, budget) => {
        const status = held(n, 'x'.repeat(len));
        const fitted = fitStatus(status, budget);
        const floor = size(fitStatus(status, 0));
        if (floor <= budget) expect(size(fitted)).toBeLessThanOrEqual(budget);
        expect(fitted.details!.map((d) => [d.name, d.passed])).toEqual(status.details!.map((d) => [d.name, d.passed]));
        for (const d of fitted.details!) expect('x'.repeat(len).startsWith(d.rejectInfo![0]!.reason.replace(/\.\.\. \[cut, \d+ bytes\]$/, ''))).toBe(true);
      }),
    );
  });
});

describe('planRound with a 1 MiB webhook message for 100 pods', () => {
  it('writes a status well under the apiserver limit, each reason at most 1 KiB', () => {
    const rule: TransitionRule = { name: 'hook', webhook: { clientConfig: { url: 'http://hook/check' }, failurePolicy: 'Fail' } };
    const pods = Array.from({ length: 100 }, (_, i) => pod(`p${i}`, { stage: 'PreCheck' }));
    const message = 'm'.repeat(1024 * 1024 - 100);
    const runtime: WebhookRuleRuntime = {
      post: { traceId: 'T', pods: pods.map((p) => p.metadata.name), outcome: { kind: 'response', response: { success: false, message, finishedNames: [], poll: false, async: false, taskId: '', traceId: '' } } },
      polls: new Map(),
    };
    const plan = planRound({ ptr: ptr([rule]), pods, runtime: () => runtime, nowMs: 0, newTraceId: () => 'U' });
    if (plan.kind !== 'evaluate') throw new Error('expected an evaluation');
    expect(size(plan.status)).toBeLessThan(STATUS_BUDGET_BYTES);
    for (const d of plan.status.details!) expect(utf8Bytes(d.rejectInfo![0]!.reason)).toBeLessThanOrEqual(1024);
    for (const a of plan.annotations) expect(utf8Bytes(a.value ?? '')).toBeLessThan(1200);
  });
});
