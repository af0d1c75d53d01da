import { describe, expect, it } from 'vitest';
import type { RuleState, WebhookRule } from '@cloneset-suite/api-types';
import { evaluateWebhookRule, type WebhookRuleInput } from '../../src/core/webhook-rule.ts';
import type { PollSnapshot, PostOutcome, WebhookRuleRuntime } from '../../src/core/webhook-runtime.ts';
import { pod } from './fixtures.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const webhook: WebhookRule = {
  clientConfig: { url: 'https://hook/check', caBundle: 'Q0E=', poll: { url: 'https://hook/result', intervalSeconds: 5, timeoutSeconds: 60 } },
  failurePolicy: 'Fail',
  parameters: [
    { key: 'fixed', value: 'v' },
    { key: 'zone', valueFrom: { fieldRef: { fieldPath: "metadata.labels['zone']" } } },
    { key: 'ip', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ],
};
const pods = ['a', 'b', 'c'].map((n, i) => pod(n, { stage: 'PreCheck', enteredAt: i, labels: { zone: `z${i}` }, status: { podIP: `10.0.0.${i}` } }));

function run(over: Partial<WebhookRuleInput> = {}) {
  return evaluateWebhookRule({
    namespace: 'ns',
    ptrName: 'ptr',
    ruleName: 'hook',
    stage: 'PreCheck',
    webhook,
    subjects: pods,
    passedBefore: () => false,
    previousReason: () => undefined,
    previousState: undefined,
    runtime: { polls: new Map() },
    nowMs: NOW,
    newTraceId: () => 'trace-1',
    ...over,
  });
}
const answered = (outcome: PostOutcome, sent = ['a', 'b', 'c']): WebhookRuleRuntime => ({ post: { traceId: 'trace-0', pods: sent, outcome }, polls: new Map() });
const response = (r: Partial<{ success: boolean; finishedNames: string[]; poll: boolean; async: boolean; taskId: string; message: string; traceId: string }>): PostOutcome => ({
  kind: 'response',
  response: { success: false, message: '', finishedNames: [], poll: false, async: false, taskId: '', traceId: '', ...r },
});
const task = (taskId: string, processing: string[], approved: string[] = []): RuleState => ({
  name: 'hook',
  webhookStatus: { taskStates: [{ taskId, processing, approved, beginTime: '2026-01-01T00:00:00.000Z' }] },
});
const polls = (s: Partial<PollSnapshot> & { taskId: string }): WebhookRuleRuntime => ({
  polls: new Map([[s.taskId, { approved: [], finished: false, stopped: false, message: '', ...s }]]),
});

describe('evaluateWebhookRule: the POST', () => {
  it('sends one request for every pending pod, with parameters from value and fieldRef', () => {
    const out = run();
    expect(out.actions).toEqual([
      {
        type: 'startPost',
        ruleName: 'hook',
        traceId: 'trace-1',
        url: 'https://hook/check',
        caBundle: 'Q0E=',
        body: {
          traceId: 'trace-1',
          stage: 'PreCheck',
          ruleName: 'hook',
          resources: pods.map((p, i) => ({ apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, parameters: { fixed: 'v', zone: `z${i}`, ip: `10.0.0.${i}` } })),
        },
      },
    ]);
    expect(out.passed).toEqual([]);
    expect(out.rejected.get('a')).toBe('waiting for webhook response, traceId trace-1');
  });

  it('never calls for a pod it approved earlier in the stage (sticky)', () => {
    const out = run({ passedBefore: (n) => n === 'b' });
    const post = out.actions.find((a) => a.type === 'startPost');
    expect(post?.type === 'startPost' && post.body.resources.map((r) => r.name)).toEqual(['a', 'c']);
    expect(out.passed).toEqual(['b']);
    expect(run({ passedBefore: () => true }).actions).toEqual([]);
  });

  it('one call at a time: while a POST is out, pods wait for it', () => {
    const out = run({ runtime: { post: { traceId: 'trace-0', pods: ['a', 'b', 'c'] }, polls: new Map() } });
    expect(out.actions).toEqual([]);
    expect(out.rejected.get('c')).toBe('waiting for webhook response, traceId trace-0');
  });

  it('success without poll approves every pod sent', () => {
    const out = run({ runtime: answered(response({ success: true, finishedNames: [] })) });
    expect(out.passed).toEqual(['a', 'b', 'c']);
    expect(out.actions).toEqual([
      { type: 'setRetry', ruleName: 'hook', retry: undefined },
      { type: 'clearPost', ruleName: 'hook', traceId: 'trace-0' },
    ]);
  });

  it('success false approves finishedNames only and asks again in 5 s', () => {
    const out = run({ runtime: answered(response({ success: false, finishedNames: ['b', 'zz'], message: 'busy' })) });
    expect(out.passed).toEqual(['b']);
    // The server's message is not copied into pods: a tenant could point a rule anywhere and read the answer there.
    expect(out.rejected.get('a')).toBe('Webhook check ns/ptr/hook rejected, traceId trace-0, taskId ');
    expect(out.actions).toContainEqual({ type: 'setRetry', ruleName: 'hook', retry: { notBeforeMs: NOW + 5_000, failures: 0 } });
    expect(out.requeueAfterMs).toBe(5_000);
  });

  it('Fail: an error rejects with the cause and backs off, doubling', () => {
    const out = run({ runtime: { ...answered({ kind: 'error', message: 'POST https://hook/check: HTTP 500' }), retry: { notBeforeMs: 0, failures: 2 } } });
    expect(out.passed).toEqual([]);
    expect(out.rejected.get('a')).toBe('Fail to do webhook request ns/ptr/hook, POST https://hook/check: HTTP 500, traceId trace-0');
    expect(out.actions).toContainEqual({ type: 'setRetry', ruleName: 'hook', retry: { notBeforeMs: NOW + 4_000, failures: 3 } });
    expect(out.requeueAfterMs).toBe(4_000);
  });

  it('Ignore: an error lets the pods pass, with a Warning event saying so', () => {
    const out = run({ webhook: { ...webhook, failurePolicy: 'Ignore' }, runtime: answered({ kind: 'error', message: 'timed out after 30s' }) });
    expect(out.passed).toEqual(['a', 'b', 'c']);
    expect(out.actions).toContainEqual({
      type: 'event',
      eventType: 'Warning',
      reason: 'WebhookFailureIgnored',
      message: 'webhook hook failed (timed out after 30s), traceId trace-0; failurePolicy Ignore lets a, b, c pass',
    });
  });

  it('the same rejection to a retried call keeps last round\'s reason: a new traceId alone changes nothing', () => {
    const before = 'Webhook check ns/ptr/hook rejected, traceId trace-0, taskId T0';
    const retried = { post: { traceId: 'trace-7', pods: ['a', 'b', 'c'], outcome: response({ message: 'busy', taskId: 'T0' }) }, polls: new Map() } satisfies WebhookRuleRuntime;
    expect(run({ runtime: retried, previousReason: () => before }).rejected.get('a')).toBe(before);
    // Another message alone is not shown in pods, so it is no change either.
    const otherMessage = { ...retried, post: { ...retried.post, outcome: response({ message: 'full', taskId: 'T0' }) } };
    expect(run({ runtime: otherMessage, previousReason: () => before }).rejected.get('a')).toBe(before);
    // A different answer is a change worth showing.
    const changed = { ...retried, post: { ...retried.post, outcome: response({ message: 'busy', taskId: 'T9' }) } };
    expect(run({ runtime: changed, previousReason: () => before }).rejected.get('a')).toBe('Webhook check ns/ptr/hook rejected, traceId trace-7, taskId T9');
  });

  it('while a retried call is out, pods keep the reason the last answer gave', () => {
    const before = 'Fail to do webhook request ns/ptr/hook, POST https://hook/check: HTTP 500, traceId trace-0';
    const retry = { notBeforeMs: NOW - 1, failures: 1 };
    const sending = run({ runtime: { retry, polls: new Map() }, previousReason: () => before });
    expect(sending.actions.some((a) => a.type === 'startPost')).toBe(true);
    expect(sending.rejected.get('a')).toBe(before);
    const out = run({ runtime: { post: { traceId: 'trace-1', pods: ['a', 'b', 'c'] }, retry, polls: new Map() }, previousReason: () => before });
    expect(out.rejected.get('b')).toBe(before);
    // A first call has no earlier answer to show.
    expect(run({ previousReason: () => before }).rejected.get('a')).toBe('waiting for webhook response, traceId trace-1');
  });

  it('Fail: a failed call records a RuleError Event naming the rule and the cause (no traceId, so repeats fold)', () => {
    const out = run({ runtime: answered({ kind: 'error', message: 'POST https://hook/check: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1' }) });
    expect(out.actions).toContainEqual({
      type: 'event',
      eventType: 'Warning',
      reason: 'RuleError',
      message: 'rule hook: webhook call failed: POST https://hook/check: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1; failurePolicy Fail holds 3 pod(s) until a call succeeds',
    });
    expect(run({ runtime: answered(response({ message: 'busy' })) }).actions.some((a) => a.type === 'event')).toBe(false);
  });

  it('a huge answer message is cut to 1 KiB in task messages and never reaches a pod reason', () => {
    const huge = 'z'.repeat(1024 * 1024);
    const rejected = run({ runtime: answered(response({ message: huge })) });
    expect(rejected.rejected.get('a')).not.toContain('zzz');
    const polling = run({ runtime: answered(response({ success: true, poll: true, taskId: 'T', message: huge })) });
    expect(Buffer.byteLength(polling.ruleState.webhookStatus!.taskStates![0]!.message!)).toBeLessThanOrEqual(1024);
    const running = run({ previousState: task('T1', ['a']), runtime: polls({ taskId: 'T1', message: huge }) });
    expect(Buffer.byteLength(running.ruleState.webhookStatus!.taskStates![0]!.message!)).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(running.rejected.get('a')!)).toBeLessThanOrEqual(1024);
  });

  it('inside the retry window nothing is sent and the last reason stays', () => {
    const out = run({ runtime: { retry: { notBeforeMs: NOW + 3_000, failures: 1 }, polls: new Map() }, previousReason: () => 'Fail to do webhook request x' });
    expect(out.actions).toEqual([]);
    expect(out.rejected.get('a')).toBe('Fail to do webhook request x');
    expect(out.requeueAfterMs).toBe(3_000);
  });

  it('pods that arrived while the call was out wait for the next round', () => {
    const out = run({ runtime: answered(response({ success: true }), ['a']) });
    expect(out.passed).toEqual(['a']);
    expect(out.rejected.get('b')).toBe('waiting for the next webhook round');
    expect(out.requeueAfterMs).toBe(0);
  });

  it('a parameter with neither value nor fieldRef fails the request (under Fail: rejected)', () => {
    const out = run({ webhook: { ...webhook, parameters: [{ key: 'broken' }] } });
    expect(out.actions.some((a) => a.type === 'startPost')).toBe(false);
    expect(out.rejected.get('a')).toMatch(/^Fail to do webhook request ns\/ptr\/hook, cannot build the request: parameter broken has neither value nor valueFrom.fieldRef/);
  });
});

describe('evaluateWebhookRule: poll tasks', () => {
  it('a poll answer approves finishedNames, opens a task for the rest and registers its poll', () => {
    const out = run({ runtime: answered(response({ success: true, poll: true, taskId: 'T1', finishedNames: ['a'], message: 'started' })) });
    expect(out.passed).toEqual(['a']);
    expect(out.rejected.get('b')).toBe('Polling task T1 initialized, traceId trace-0');
    expect(out.ruleState.webhookStatus?.taskStates).toEqual([
      { taskId: 'T1', processing: ['b', 'c'], approved: ['a'], beginTime: '2026-01-01T00:00:00.000Z', lastTime: '2026-01-01T00:00:00.000Z', message: 'started' },
    ]);
    expect(out.actions).toContainEqual({
      type: 'registerPoll',
      ruleName: 'hook',
      taskId: 'T1',
      pods: ['b', 'c'],
      poll: { url: 'https://hook/result', queryKey: 'task-id', intervalMs: 5_000, timeoutMs: 60_000 },
      beginMs: NOW,
    });
  });

  it('async is polled under the task-id key as Kuperator does (without a taskId, by the traceId sent); rawQueryKey wins', () => {
    const out = run({ runtime: answered(response({ success: true, async: true })) });
    expect(out.actions).toContainEqual(expect.objectContaining({ type: 'registerPoll', taskId: 'trace-0', poll: expect.objectContaining({ queryKey: 'task-id' }) }));
    const named = run({ runtime: answered(response({ success: true, async: true, taskId: 'A1' })) });
    expect(named.actions).toContainEqual(expect.objectContaining({ type: 'registerPoll', taskId: 'A1', poll: expect.objectContaining({ queryKey: 'task-id' }) }));
    const raw = run({ webhook: { ...webhook, clientConfig: { ...webhook.clientConfig, poll: { url: 'https://hook/result', rawQueryKey: 'id' } } }, runtime: answered(response({ success: true, poll: true, taskId: 'T' })) });
    expect(raw.actions).toContainEqual(expect.objectContaining({ type: 'registerPoll', poll: { url: 'https://hook/result', queryKey: 'id', intervalMs: 5_000, timeoutMs: 60_000 } }));
  });

  it('a poll answer without a task id, or without poll config, rejects every pod', () => {
    expect(run({ runtime: answered(response({ success: true, poll: true })) }).rejected.get('a')).toMatch(/Invalid empty taskID/);
    const noPoll = run({ webhook: { ...webhook, clientConfig: { url: 'https://hook/check' } }, runtime: answered(response({ success: true, poll: true, taskId: 'T' })) });
    expect(noPoll.rejected.get('a')).toMatch(/no poll config/);
  });

  it('a running task approves what the poll finished so far and keeps the rest waiting, without a new POST', () => {
    const out = run({ previousState: task('T1', ['a', 'b', 'c']), runtime: polls({ taskId: 'T1', approved: ['b'], message: 'working', lastQueryMs: NOW - 1_000 }) });
    expect(out.passed).toEqual(['b']);
    // The same words every poll: progress and the server's message live in the task's status.
    expect(out.rejected.get('a')).toBe('polling task T1 is running (its progress is in status.ruleStates)');
    expect(out.actions).toEqual([]);
    expect(out.ruleState.webhookStatus?.taskStates).toEqual([
      { taskId: 'T1', processing: ['a', 'c'], approved: ['b'], beginTime: '2026-01-01T00:00:00.000Z', lastTime: '2025-12-31T23:59:59.000Z', message: 'working' },
    ]);
  });

  it('round after round, approved grows and processing shrinks: a pod that passed stays in approved', () => {
    // Round 1: the poll finished b. Round 2: b passed last round (sticky), the poll adds c.
    const first = run({ previousState: task('T1', ['a', 'b', 'c']), runtime: polls({ taskId: 'T1', approved: ['b'] }) });
    expect(first.ruleState.webhookStatus?.taskStates?.[0]).toMatchObject({ processing: ['a', 'c'], approved: ['b'] });
    const second = run({
      previousState: first.ruleState,
      passedBefore: (n) => n === 'b',
      runtime: polls({ taskId: 'T1', approved: ['b', 'c', 'stranger'] }),
    });
    expect(second.passed).toEqual(['b', 'c']);
    expect(second.ruleState.webhookStatus?.taskStates?.[0]).toMatchObject({ processing: ['a'], approved: ['b', 'c'] });
    expect(second.rejected.get('a')).toBe(first.rejected.get('a'));
  });

  it('a finished task approves all its pods and moves to history', () => {
    const out = run({ previousState: task('T1', ['a', 'b', 'c']), runtime: polls({ taskId: 'T1', finished: true, message: 'done' }) });
    expect(out.passed).toEqual(['a', 'b', 'c']);
    expect(out.actions).toEqual([{ type: 'dropPoll', ruleName: 'hook', taskId: 'T1' }]);
    expect(out.ruleState.webhookStatus?.taskStates).toBeUndefined();
    expect(out.ruleState.webhookStatus?.history?.[0]).toMatchObject({ taskId: 'T1', message: 'done' });
  });

  it('a stopped task keeps what it approved; the others are asked again with a new POST in the same round', () => {
    const out = run({ previousState: task('T1', ['a', 'b', 'c']), runtime: polls({ taskId: 'T1', approved: ['a'], stopped: true, message: 'Polling Timeout.' }) });
    expect(out.passed).toEqual(['a']);
    const post = out.actions.find((a) => a.type === 'startPost');
    expect(post?.type === 'startPost' && post.body.resources.map((r) => r.name)).toEqual(['b', 'c']);
    expect(out.ruleState.webhookStatus?.history?.[0]).toMatchObject({ taskId: 'T1', message: 'Polling Timeout.' });
  });

  it('after a restart a task from status is re-registered with a new timeout window', () => {
    const out = run({ previousState: task('T1', ['a', 'c'], ['b']) });
    expect(out.passed).toEqual(['b']);
    expect(out.rejected.get('a')).toBe('polling result not found, try polling again');
    expect(out.actions).toEqual([
      { type: 'registerPoll', ruleName: 'hook', taskId: 'T1', pods: ['a', 'c'], poll: { url: 'https://hook/result', queryKey: 'task-id', intervalMs: 5_000, timeoutMs: 60_000 }, beginMs: NOW },
    ]);
    expect(out.ruleState.webhookStatus?.taskStates?.[0]).toMatchObject({ taskId: 'T1', processing: ['a', 'c'], beginTime: '2026-01-01T00:00:00.000Z' });
  });

  it('a task whose pods all left the stage is retired; history older than 10 min is dropped', () => {
    const previousState: RuleState = {
      name: 'hook',
      webhookStatus: {
        taskStates: [{ taskId: 'gone', processing: ['zz'] }],
        history: [
          { taskId: 'old', lastTime: new Date(NOW - 11 * 60_000).toISOString() },
          { taskId: 'recent', lastTime: new Date(NOW - 60_000).toISOString() },
        ],
      },
    };
    const out = run({ previousState, passedBefore: () => true });
    expect(out.actions).toEqual([{ type: 'dropPoll', ruleName: 'hook', taskId: 'gone' }]);
    expect(out.ruleState.webhookStatus?.history?.map((t) => t.taskId)).toEqual(['recent', 'gone']);
  });
});

describe('evaluateWebhookRule: bounded requests', () => {
  const many = Array.from({ length: 105 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, { stage: 'PreCheck', enteredAt: i }));

  it('one call carries at most 100 pods; the others wait for the next call, then are sent', () => {
    const out = run({ subjects: many, webhook: { ...webhook, parameters: [] } });
    const post = out.actions.find((a) => a.type === 'startPost');
    expect(post?.type === 'startPost' && post.body.resources).toHaveLength(100);
    expect(out.rejected.get('p100')).toBe('waiting for the next webhook call (one call carries a bounded number of pods)');
    // While that call is out, the others still wait, and no second call starts.
    const sent = many.slice(0, 100).map((p) => p.metadata.name);
    const inFlight = run({ subjects: many, webhook: { ...webhook, parameters: [] }, runtime: { post: { traceId: 'trace-1', pods: sent }, polls: new Map() } });
    expect(inFlight.actions).toEqual([]);
    expect(inFlight.rejected.get('p104')).toBe('waiting for the next webhook call (one call carries a bounded number of pods)');
    // Answered: those pass, and the rest are asked at once.
    const answer = run({ subjects: many, webhook: { ...webhook, parameters: [] }, runtime: { post: { traceId: 'trace-1', pods: sent, outcome: response({ success: true }) }, polls: new Map() } });
    expect(answer.passed).toHaveLength(100);
    expect(answer.requeueAfterMs).toBe(0);
  });

  it('a parameter rendering past its bound fails the rule with a RuleError Event, whatever the failurePolicy, and sends nothing', () => {
    const huge = pods.map((p, i) => (i === 1 ? { ...p, metadata: { ...p.metadata, annotations: { blob: 'x'.repeat(200 * 1024) } } } : p));
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      const out = run({ subjects: huge, webhook: { ...webhook, failurePolicy, parameters: [{ key: 'all', valueFrom: { fieldRef: { fieldPath: 'metadata.annotations' } } }] } });
      expect(out.actions.some((a) => a.type === 'startPost')).toBe(false);
      expect(out.passed).toEqual([]);
      expect(out.rejected.get('a')).toMatch(/^Fail to build the webhook request ns\/ptr\/hook: parameter all of pod b renders to \d+ bytes, more than 16384, traceId trace-1$/);
      expect(out.actions).toContainEqual({ type: 'event', eventType: 'Warning', reason: 'RuleError', message: expect.stringMatching(/^rule hook: cannot build the webhook request: parameter all of pod b/) });
      expect(out.actions).toContainEqual({ type: 'setRetry', ruleName: 'hook', retry: { notBeforeMs: NOW + 1_000, failures: 1 } });
    }
  });
});
