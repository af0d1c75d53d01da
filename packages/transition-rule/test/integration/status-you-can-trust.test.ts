// What the PodTransitionRule controller shows and writes, against the real local control plane:
// poll tasks in the status, why a failing webhook holds a pod, the owner's missing replicas, sizes
// the apiserver accepts, refused writes, and no rewrite when only a traceId changes.
import { describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import type { PodTransitionRuleStatus, TaskState } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';
import { applyRule, clusterSuite, createPods, podManifest, type PodSpec } from './harness.ts';

const { server, setup } = clusterSuite();

const ptrStatus = async (ns: string, name: string) => (await getJson<{ status?: PodTransitionRuleStatus }>(['podtransitionrule', name, '-n', ns]))?.status;
const podJson = async (ns: string, name: string) => getJson<V1Pod>(['pod', name, '-n', ns]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const resources = (body: unknown) => ((body as { resources?: { name: string }[] }).resources ?? []).map((r) => r.name);

interface EventJson {
  reason: string;
  note: string;
  regarding: { name: string };
}
const events = async (ns: string, reason: string) => ((await getJson<{ items: EventJson[] }>(['events.events.k8s.io', '-n', ns]))?.items ?? []).filter((e) => e.reason === reason);

describe('poll tasks in the rule status', () => {
  it('taskStates show processing shrinking and approved growing as the poll URL reports finished pods, polled under task-id', async () => {
    const { ns } = await setup('ptr-tasks');
    // The pods are cached before the rule exists, so its first round asks for all three at once.
    await createPods(ns, ['a', 'b', 'c'].map((name) => ({ name, stage: 'PreCheck' })));
    await sleep(1_000);
    await applyRule(ns, {
      name: 'slow',
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/poll'), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 300 } } } }] },
    });
    const task = async () => (await ptrStatus(ns, 'slow'))?.ruleStates?.[0]?.webhookStatus?.taskStates?.[0];
    const taskId = await eventually('a task for the three pods', async () => {
      const t = await task();
      return t?.processing?.length === 3 ? t.taskId : undefined;
    });
    const seen = (want: Partial<TaskState>) => eventually(`task ${JSON.stringify(want)}`, async () => {
      const t = await task();
      return JSON.stringify([t?.processing, t?.approved]) === JSON.stringify([want.processing, want.approved]) ? t : undefined;
    }, { timeoutMs: 20_000 });
    server.tasks.get(taskId)!.finishedNames = ['a'];
    await seen({ processing: ['b', 'c'], approved: ['a'] });
    // a has passed; it stays listed as approved while b joins it.
    server.tasks.get(taskId)!.finishedNames = ['a', 'b'];
    const later = await seen({ processing: ['c'], approved: ['a', 'b'] });
    expect(later.taskId).toBe(taskId);
    expect(server.calls.some((c) => c.path === '/result' && c.query.get('task-id') === taskId)).toBe(true);
  });

  it('an async answer without a taskId is polled by its traceId under the task-id key, as Kuperator does', async () => {
    const { ns, ctl } = await setup('ptr-async');
    await applyRule(ns, {
      name: 'async',
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/async'), poll: { url: server.url('/result'), intervalSeconds: 1 } } } }] },
    });
    await createPods(ns, [{ name: 'x1', stage: 'PreCheck' }]);
    const traceId = await eventually('the async POST', () => Promise.resolve((server.calls.find((c) => c.path === '/async' && resources(c.body).includes('x1'))?.body as { traceId?: string } | undefined)?.traceId));
    await eventually('polled under task-id', () => Promise.resolve(server.calls.some((c) => c.path === '/result' && c.query.get('task-id') === traceId)));
    server.tasks.get(traceId)!.finished = true;
    await eventually('x1 passes', async () => ctl.gate.check((await podJson(ns, 'x1'))!, 'PreCheck').passed, { timeoutMs: 15_000 });
    expect(server.calls.some((c) => c.query.has('trace-id'))).toBe(false);
  });
});

describe('every wait is explained', () => {
  it('a webhook error under failurePolicy Fail: a RuleError Event names the rule and the reason, and the pod\'s detail annotation says why', async () => {
    const { ns } = await setup('ptr-why');
    await applyRule(ns, { name: 'strict', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/500') }, failurePolicy: 'Fail' } }] } });
    await createPods(ns, [{ name: 'held', stage: 'PreCheck' }]);
    const event = await eventually('the RuleError Event', async () => (await events(ns, 'RuleError'))[0]);
    expect(event.regarding.name).toBe('strict');
    // The status and a fixed class, never the answer's body (a tenant could aim a rule at any address).
    expect(event.note).toBe('rule hook: webhook call failed: HTTP 500; failurePolicy Fail holds 1 pod(s) until a call succeeds');
    const annotation = await eventually('the detail annotation', async () => (await podJson(ns, 'held'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/strict']);
    const detail = JSON.parse(annotation) as { stage: string; passed: boolean; rejectInfo: { ruleName: string; reason: string }[] };
    expect(detail).toMatchObject({ stage: 'PreCheck', passed: false, rejectInfo: [{ ruleName: 'hook' }] });
    expect(detail.rejectInfo[0]!.reason).toMatch(new RegExp(`^Fail to do webhook request ${ns}/strict/hook, HTTP 500, traceId `));
    expect((await ptrStatus(ns, 'strict'))?.details?.[0]?.rejectInfo).toEqual(detail.rejectInfo);
  });
});

describe('availablePolicy counts the missing replicas of the pods\' CloneSet', () => {
  it('9 of 10 replicas present with maxUnavailable 1 approves nobody; at 9 replicas the pod is approved', async () => {
    const { ns } = await setup('ptr-missing');
    await kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: { replicas: 10, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'registry.example/app:v1' }] } } },
    }));
    const uid = (await getJson<{ metadata: { uid: string } }>(['cloneset', 'web', '-n', ns]))!.metadata.uid;
    const owner = { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'web', uid, controller: true, blockOwnerDeletion: true };
    const pods: PodSpec[] = names(9, 'web-').map((name, i) => ({ name, ...(i === 0 ? { stage: 'PreCheck' as const } : {}) }));
    const items = pods.map((p) => {
      const m = podManifest(p) as { metadata: Record<string, unknown> };
      return { ...m, metadata: { ...m.metadata, ownerReferences: [owner] } };
    });
    await kubectl(['create', '-n', ns, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await applyRule(ns, { name: 'one-at-a-time', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'avail', availablePolicy: { maxUnavailableValue: 1 } }] } });
    const held = await eventually('web-0 held', async () => (await ptrStatus(ns, 'one-at-a-time'))?.details?.find((d) => d.name === 'web-0' && !d.passed));
    expect(held.rejectInfo?.[0]?.reason).toBe('[avail] blocked by max unavailable policy: [max unavailable]=1/9, [current unavailable]=0/9, [missing replicas]=1');
    // Scaling the CloneSet to the pods there (no pod changes) frees the quota.
    await kubectl(['patch', 'cloneset', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":9}}']);
    await eventually('web-0 approved', async () => (await ptrStatus(ns, 'one-at-a-time'))?.details?.find((d) => d.name === 'web-0')?.passed, { timeoutMs: 15_000 });
  });
});

describe('sizes and refused writes', () => {
  it('a 1 MiB webhook message for 100 pods never reaches their reasons: the status stays small', async () => {
    const { ns } = await setup('ptr-huge');
    server.on('POST', '/huge-reject', () => ({ json: { success: false, message: 'm'.repeat(1024 * 1024 - 256) } }));
    await applyRule(ns, { name: 'loud', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/huge-reject') } } }] } });
    await createPods(ns, names(100, 'p').map((name) => ({ name, stage: 'PreCheck' })));
    const status = await eventually('100 pods rejected with the message', async () => {
      const s = await ptrStatus(ns, 'loud');
      return s?.details?.length === 100 && s.details.every((d) => d.rejectInfo?.[0]?.reason.startsWith('Webhook check')) ? s : undefined;
    }, { timeoutMs: 60_000 });
    for (const d of status.details!) {
      expect(Buffer.byteLength(d.rejectInfo![0]!.reason)).toBeLessThanOrEqual(1024);
      expect(d.rejectInfo![0]!.reason).not.toContain('mmm');
    }
    const annotation = await eventually('annotated', async () => (await podJson(ns, 'p7'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/loud']);
    expect(Buffer.byteLength(annotation)).toBeLessThan(1_200);
  });

  it('a detail annotation the apiserver refuses (the pod\'s annotations are full) is not retried unchanged: an Event names the rule and the reason', async () => {
    const { ns, ctl } = await setup('ptr-refused');
    await applyRule(ns, { name: 'gate', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'ready', labelCheck: { requires: { matchLabels: { ready: 'true' } } } }] } });
    // 256 KiB is the apiserver's limit for all of a pod's annotations together.
    const full = podManifest({ name: 'full', stage: 'PreCheck' }) as { metadata: Record<string, unknown> };
    await kubectl(['create', '-n', ns, '-f', '-'], JSON.stringify({ ...full, metadata: { ...full.metadata, annotations: { 'example.com/blob': 'b'.repeat(262_000) } } }));
    await createPods(ns, [{ name: 'fine', stage: 'PreCheck' }]);
    const event = await eventually('the DetailAnnotationRefused Event', async () => (await events(ns, 'DetailAnnotationRefused'))[0]);
    expect(event.regarding.name).toBe('gate');
    expect(event.note).toMatch(new RegExp(`^the apiserver refused the detail annotation of pod ${ns}/full: .*annotations.*Too long`));
    await eventually('fine annotated', async () => (await podJson(ns, 'fine'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/gate']);
    await sleep(1_000);
    const writes = await ctl.writes();
    await sleep(5_000);
    expect(await ctl.writes()).toBe(writes);
  });
});

describe('write amplification', () => {
  it('30 pods a webhook keeps rejecting the same way cost no writes after the first decision, though the webhook is asked every 5 s', async () => {
    const { ns, ctl } = await setup('ptr-quiet');
    server.on('POST', '/busy', () => ({ json: { success: false, message: 'maintenance window closed' } }));
    await applyRule(ns, { name: 'busy', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/busy') } } }] } });
    const pods = names(30, 'q');
    await createPods(ns, pods.map((name) => ({ name, stage: 'PreCheck' })));
    await eventually('every pod rejected and annotated', async () => {
      const s = await ptrStatus(ns, 'busy');
      // The server's own words stay out of the reasons (a tenant's server text is never copied to pods).
      if (!(s?.details?.length === 30 && s.details.every((d) => d.rejectInfo?.[0]?.reason.includes('hook rejected, traceId')))) return undefined;
      const list = await getJson<{ items: V1Pod[] }>(['pods', '-n', ns]);
      return list?.items.every((p) => p.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/busy']?.includes('rejected')) ? true : undefined;
    }, { timeoutMs: 30_000 });
    const asked = server.callsTo('/busy').length;
    const writes = await ctl.writes();
    await sleep(11_000);
    expect(server.callsTo('/busy').length - asked).toBeGreaterThanOrEqual(2);
    expect(await ctl.writes()).toBe(writes);
  });
});
