// The webhook rule end to end without a cluster: the pure rounds, the runtime store executing
// their actions, and a real loopback server speaking seed 000's protocol. Each scenario drives
// rounds the way the controller does (status persisted between rounds) until pods are decided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock, silentLogger } from '@cloneset-suite/kube-runtime';
import type { PodTransitionRuleStatus, TransitionRule, WebhookRule } from '@cloneset-suite/api-types';
import { planRound, type EvaluatePlan } from '../../src/core/round.ts';
import { WebhookClient } from '../../src/http/webhook-client.ts';
import { WebhookRuntimeStore } from '../../src/reconciler/webhook-runtime-store.ts';
import { pod, ptr, type TestPod } from './fixtures.ts';
import { TestWebhookServer } from '../support/webhook-server.ts';

let server: TestWebhookServer;
beforeAll(async () => {
  server = await new TestWebhookServer().listen();
});
afterAll(async () => server.close());

class Driver {
  status: PodTransitionRuleStatus | undefined;
  readonly events: string[] = [];
  private wake: (() => void) | undefined;
  private traceSeq = 0;
  readonly client: WebhookClient;
  readonly store: WebhookRuntimeStore;
  readonly rules: TransitionRule[];
  readonly pods: TestPod[];
  constructor(rules: TransitionRule[], pods: TestPod[], clientOptions: ConstructorParameters<typeof WebhookClient>[0] = {}) {
    this.rules = rules;
    this.pods = pods;
    // The test servers listen on 127.0.0.1, refused unless loopback is allowed.
    this.client = new WebhookClient({ allowAddresses: ['loopback'], ...clientOptions });
    this.store = new WebhookRuntimeStore({ caller: this.client, clock: realClock, logger: silentLogger(), changed: () => this.wake?.() });
  }
  round(): EvaluatePlan {
    const plan = planRound({ ptr: ptr(this.rules, this.status), pods: this.pods, runtime: (r) => this.store.runtime('ns/ptr', r), nowMs: Date.now(), newTraceId: () => `trace-${++this.traceSeq}` });
    if (plan.kind !== 'evaluate') throw new Error('unexpected cleanup');
    this.store.apply('ns/ptr', plan.actions.filter((a) => a.type !== 'clearPost'));
    for (const a of plan.actions) if (a.type === 'event') this.events.push(`${a.reason}: ${a.message}`);
    this.status = plan.status;
    this.store.apply('ns/ptr', plan.actions.filter((a) => a.type === 'clearPost'));
    return plan;
  }
  /** Runs rounds (each after a change or the plan's requeue) until `done` holds or time runs out. */
  async until(done: (plan: EvaluatePlan) => boolean, timeoutMs = 5_000): Promise<EvaluatePlan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const plan = this.round();
      if (done(plan)) return plan;
      if (Date.now() > deadline) throw new Error(`not settled: ${JSON.stringify(plan.status.details)}`);
      const wait = Math.min(plan.requeueAfterMs ?? 200, 200);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }
  detail(name: string) {
    return this.status?.details?.find((d) => d.name === name);
  }
  async close(): Promise<void> {
    await this.store.stop();
  }
}

const hookRule = (path: string, extra: Partial<WebhookRule> = {}): TransitionRule => ({
  name: 'hook',
  webhook: { clientConfig: { url: server.url(path), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 30 } }, failurePolicy: 'Fail', ...extra },
});
const inStage = (...names: string[]) => names.map((n, i) => pod(n, { stage: 'PreCheck', enteredAt: i }));
const allPassed = (p: EvaluatePlan) => (p.status.details ?? []).every((d) => d.passed);

describe('webhook rule over HTTP', () => {
  it('immediate success: one POST carries every pending pod, and no call is made once they passed', async () => {
    const d = new Driver([hookRule('/ok')], inStage('a', 'b'));
    await d.until(allPassed);
    const calls = server.callsTo('/ok').length;
    d.round();
    d.round();
    expect(server.callsTo('/ok').length).toBe(calls);
    expect(server.callsTo('/ok').at(-1)?.body).toMatchObject({ ruleName: 'hook', stage: 'PreCheck', resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'a' }, { apiVersion: 'v1', kind: 'Pod', name: 'b' }] });
    expect(d.detail('a')).toEqual({ name: 'a', stage: 'PreCheck', passed: true, passedRules: ['hook'] });
    await d.close();
  });

  it('partial success approves finishedNames and keeps the others rejected (the server message stays out of pods)', async () => {
    const d = new Driver([hookRule('/partial')], inStage('a', 'b'));
    const plan = await d.until((p) => p.status.details?.some((x) => x.passed) === true);
    expect(d.detail('a')?.passed).toBe(true);
    expect(d.detail('b')?.rejectInfo?.[0]?.reason).toMatch(/^Webhook check ns\/ptr\/hook rejected, traceId trace-\d+, taskId $/);
    expect(plan.requeueAfterMs).toBe(5_000);
    await d.close();
  });

  it('poll with progress: pods pass as the poll reports them, all when it answers finished', async () => {
    const d = new Driver([hookRule('/poll')], inStage('a', 'b', 'c'));
    await d.until((p) => p.status.ruleStates?.[0]?.webhookStatus?.taskStates?.length === 1);
    const taskId = d.status!.ruleStates![0]!.webhookStatus!.taskStates![0]!.taskId;
    expect(d.detail('a')?.rejectInfo?.[0]?.reason).toMatch(new RegExp(`^Polling task ${taskId} initialized`));
    server.tasks.get(taskId)!.finishedNames = ['b'];
    await d.until(() => d.detail('b')?.passed === true);
    expect(d.detail('a')?.rejectInfo?.[0]?.reason).toBe(`polling task ${taskId} is running (its progress is in status.ruleStates)`);
    expect(server.callsTo('/result').at(-1)?.query.get('task-id')).toBe(taskId);
    server.tasks.get(taskId)!.finished = true;
    await d.until(allPassed);
    expect(d.status!.ruleStates![0]!.webhookStatus!.history![0]).toMatchObject({ taskId });
    expect(server.callsTo('/poll')).toHaveLength(1);
    await d.close();
  });

  it('poll timeout: the task stops and the pods are asked again with a new POST', async () => {
    const d = new Driver([hookRule('/poll', { clientConfig: { url: server.url('/poll'), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 1 } } })], inStage('a'));
    await d.until((p) => p.status.ruleStates?.[0]?.webhookStatus?.history?.[0]?.message?.startsWith('Polling Timeout.') === true, 8_000);
    expect(d.detail('a')?.passed).toBe(false);
    await d.until(() => server.callsTo('/poll').filter((c) => (c.body as { resources: { name: string }[] }).resources[0]?.name === 'a').length >= 2, 8_000);
    await d.close();
  });

  it('stop: the task ends with what it approved; the rest are asked again', async () => {
    const d = new Driver([hookRule('/poll')], inStage('x', 'y'));
    await d.until((p) => p.status.ruleStates?.[0]?.webhookStatus?.taskStates?.length === 1);
    const taskId = d.status!.ruleStates![0]!.webhookStatus!.taskStates![0]!.taskId;
    Object.assign(server.tasks.get(taskId)!, { finishedNames: ['x'], stop: true, message: 'operator said stop' });
    await d.until((p) => p.status.ruleStates?.[0]?.webhookStatus?.history?.some((t) => t.taskId === taskId) === true);
    expect(d.detail('x')?.passed).toBe(true);
    expect(d.detail('y')?.passed).toBe(false);
    await d.close();
  });

  it.each([
    ['/500', /, HTTP 500, traceId/, 30_000],
    ['/garbage', /, response-not-json, traceId/, 30_000],
    ['/huge', /, response-too-large, traceId/, 30_000],
    ['/hang', /, timeout, traceId/, 500],
  ])('Fail: %s rejects with the class of the cause and retries with backoff', async (path, cause, timeoutMs) => {
    const d = new Driver([hookRule(path)], inStage('a'), { timeoutMs });
    const plan = await d.until(() => d.detail('a')?.rejectInfo?.[0]?.reason.startsWith('Fail to do webhook request') === true);
    expect(d.detail('a')?.rejectInfo?.[0]?.reason).toMatch(cause);
    expect(plan.requeueAfterMs).toBe(1_000);
    await d.close();
  });

  it('Ignore: a dead endpoint lets the pods pass with an event saying so', async () => {
    const d = new Driver([hookRule('/500', { failurePolicy: 'Ignore' })], inStage('a'));
    await d.until(allPassed);
    expect(d.events).toEqual([expect.stringMatching(/^WebhookFailureIgnored: webhook hook failed \(HTTP 500\), traceId trace-\d+; failurePolicy Ignore lets a pass$/)]);
    await d.close();
  });
});
