// The PodTransitionRule controller against the real local control plane: pods are put into
// PreCheck/PostCheck by labelling them; the tests read the rule's status, the pods' detail
// annotations and the StageGate's answer.
import { describe, expect, it } from 'vitest';
import { eventually, freePort, getJson, kubectl } from '@cloneset-suite/local-cluster';
import type { PodTransitionRuleStatus, TransitionRuleDetail } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';
import { applyRule, clusterSuite, createPods, stageLabels, startController } from './harness.ts';

interface PtrJson {
  metadata: { finalizers?: string[] };
  status?: PodTransitionRuleStatus;
}

const suite = clusterSuite();
const { server, setup } = suite;

const ptrStatus = async (ns: string, name: string) => (await getJson<PtrJson>(['podtransitionrule', name, '-n', ns]))?.status;
const detailOf = async (ns: string, ptr: string, pod: string): Promise<TransitionRuleDetail | undefined> => (await ptrStatus(ns, ptr))?.details?.find((d) => d.name === pod);
const podJson = async (ns: string, name: string) => getJson<V1Pod>(['pod', name, '-n', ns]);

describe('PodTransitionRule controller', () => {
  it('labelCheck blocks PreCheck until kubectl label adds the label; the gate opens without waiting for a resync', async () => {
    const { ns, ctl } = await setup('ptr-label');
    await applyRule(ns, { name: 'needs-ready', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'ready', labelCheck: { requires: { matchLabels: { 'app.custom/ready': 'true' } } } }] } });
    await createPods(ns, [{ name: 'p1', stage: 'PreCheck' }, { name: 'idle' }]);

    const blocked = await eventually('p1 blocked by the label check', async () => {
      const d = await detailOf(ns, 'needs-ready', 'p1');
      return d?.passed === false ? d : undefined;
    });
    expect(blocked.rejectInfo).toEqual([{ ruleName: 'ready', reason: `block by label check policy, pod ${ns}/p1 labels not match app.custom/ready=true` }]);
    const ptr = await getJson<PtrJson>(['podtransitionrule', 'needs-ready', '-n', ns]);
    expect(ptr?.metadata.finalizers).toContain('finalizer.operating.kusionstack.io/protected');
    expect(ptr?.status).toMatchObject({ targets: ['idle', 'p1'], targetCount: 2, passedCount: 0, waitingCount: 1, observedGeneration: 1 });
    // kubectl describe pod shows why through the annotation; kubectl get ptr shows the counts.
    const annotation = await eventually('detail annotation', async () => (await podJson(ns, 'p1'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/needs-ready']);
    expect(JSON.parse(annotation)).toEqual({ stage: 'PreCheck', passed: false, rejectInfo: blocked.rejectInfo });
    expect((await podJson(ns, 'idle'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/needs-ready']).toBe('{"stage":"Unknown","passed":true}');
    const table = await kubectl(['get', 'ptr', '-n', ns]);
    expect(table).toMatch(/NAME\s+RULES\s+TARGETS\s+PASSED\s+WAITING\s+AGE/);
    expect(table).toMatch(/needs-ready\s+ready\s+2\s+0\s+1\s+/);

    const pod = (await podJson(ns, 'p1'))!;
    expect(ctl.gate.check(pod, 'PreCheck')).toEqual({ passed: false, message: `[PodTransitionRule: needs-ready, RejectInfo: ready:${blocked.rejectInfo![0]!.reason}]` });
    const labelledAt = Date.now();
    await kubectl(['label', 'pod', 'p1', '-n', ns, 'app.custom/ready=true']);
    await eventually('the gate opens for p1', async () => ctl.gate.check((await podJson(ns, 'p1'))!, 'PreCheck').passed);
    const ring = ctl.rings.find((r) => r.pod === 'p1' && r.atMs >= labelledAt);
    expect(ring, 'the doorbell rang for p1 after the label').toBeDefined();
    expect(ring!.atMs - labelledAt).toBeLessThan(5_000);
    expect(await detailOf(ns, 'needs-ready', 'p1')).toEqual({ name: 'p1', stage: 'PreCheck', passed: true, passedRules: ['ready'] });

    // Settled: further pod events cause rounds but no writes (status and annotations unchanged).
    await eventually('annotation caught up', async () => JSON.parse((await podJson(ns, 'p1'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/needs-ready'] ?? '{}').passed === true);
    await new Promise((r) => setTimeout(r, 1_000));
    const writes = await ctl.writes();
    await kubectl(['annotate', 'pod', 'p1', 'idle', '-n', ns, 'touched=1']);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await ctl.writes()).toBe(writes);
  });

  it('availablePolicy 50% over 6 pods never approves more than the quota (sampled throughout), and one more only when a pod is available again', async () => {
    const { ns } = await setup('ptr-avail');
    await applyRule(ns, { name: 'half', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'avail', availablePolicy: { maxUnavailableValue: '50%' } }] } });
    const names = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
    await createPods(ns, names.map((name) => ({ name })));
    await eventually('six targets', async () => (await ptrStatus(ns, 'half'))?.targetCount === 6);
    // Sample the status the whole time: approved pods still in the stage plus pods the lifecycle
    // moved on (unavailable) never exceed 3 of 6.
    const movedOn = new Set<string>();
    const violations: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = await ptrStatus(ns, 'half');
        const passed = (s?.details ?? []).filter((d) => d.passed && !movedOn.has(d.name)).length;
        if (passed + movedOn.size > 3) violations.push(JSON.stringify(s?.details));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const passedNow = async () => ((await ptrStatus(ns, 'half'))?.details ?? []).filter((d) => d.passed).map((d) => d.name);
    await kubectl(['label', 'pod', ...names, '-n', ns, ...Object.entries(stageLabels('PreCheck')).map(([k, v]) => `${k}=${v}`)]);
    const status = await eventually('three approvals, three waiting', async () => {
      const s = await ptrStatus(ns, 'half');
      return s?.details?.length === 6 && s.passedCount === 3 ? s : undefined;
    });
    const waiting = status.details!.find((d) => !d.passed)!;
    expect(waiting.rejectInfo?.[0]?.reason).toBe('[avail] blocked by max unavailable policy: [max unavailable]=3/6, [current unavailable]=3/6');

    // The lifecycle moves one approved pod on: it leaves PreCheck and loses service-available.
    const first = (await passedNow())[0]!;
    movedOn.add(first);
    await kubectl(['label', 'pod', first, '-n', ns, 'pre-check.podopslifecycle.kusionstack.io/x-', 'podopslifecycle.kusionstack.io/service-available-']);
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await passedNow()).length).toBe(2);
    // It comes back available: exactly one more pod may go.
    await kubectl(['label', 'pod', first, '-n', ns, 'podopslifecycle.kusionstack.io/service-available=1']);
    movedOn.delete(first);
    await eventually('a third approval', async () => (await passedNow()).length === 3);
    await new Promise((r) => setTimeout(r, 1_000));
    sampling = false;
    await sampler;
    expect((await passedNow()).length).toBe(3);
    expect(violations).toEqual([]);
  });

  it('a PostCheck webhook with poll lets the pod pass only when the poll answers finished', async () => {
    const { ns, ctl } = await setup('ptr-poll');
    await applyRule(ns, {
      name: 'post-hook',
      spec: {
        selector: { matchLabels: { app: 'web' } },
        rules: [{ name: 'hook', stage: 'PostCheck', webhook: { clientConfig: { url: server.url('/poll'), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 120 } }, parameters: [{ key: 'name', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] } }],
      },
    });
    await createPods(ns, [{ name: 'w1', stage: 'PostCheck', available: false }]);
    const taskId = await eventually('a poll task in status', async () => (await ptrStatus(ns, 'post-hook'))?.ruleStates?.[0]?.webhookStatus?.taskStates?.[0]?.taskId);
    const post = server.calls.find((c) => c.path === '/poll' && (c.body as { resources: { name: string }[] }).resources[0]?.name === 'w1');
    expect(post?.body).toMatchObject({ stage: 'PostCheck', ruleName: 'hook', resources: [{ apiVersion: 'v1', kind: 'Pod', name: 'w1', parameters: { name: 'w1' } }] });
    await eventually('polls for the task', () => Promise.resolve(server.calls.some((c) => c.path === '/result' && c.query.get('task-id') === taskId)));
    expect(ctl.gate.check((await podJson(ns, 'w1'))!, 'PostCheck').passed).toBe(false);
    expect((await detailOf(ns, 'post-hook', 'w1'))?.rejectInfo?.[0]?.reason).toMatch(new RegExp(`^(Polling task ${taskId} initialized|polling task ${taskId} is running)`));
    server.tasks.get(taskId)!.finished = true;
    await eventually('w1 passes PostCheck', async () => ctl.gate.check((await podJson(ns, 'w1'))!, 'PostCheck').passed, { timeoutMs: 15_000 });
    expect(await detailOf(ns, 'post-hook', 'w1')).toEqual({ name: 'w1', stage: 'PostCheck', passed: true, passedRules: ['hook'] });
  });

  it('Fail blocks on a dead endpoint; Ignore passes with an Event saying so', async () => {
    const { ns } = await setup('ptr-fail');
    const dead = `http://127.0.0.1:${await freePort()}/dead`;
    await applyRule(ns, { name: 'strict', spec: { selector: { matchLabels: { app: 'strict' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: dead }, failurePolicy: 'Fail' } }] } });
    await applyRule(ns, { name: 'lenient', spec: { selector: { matchLabels: { app: 'lenient' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: dead }, failurePolicy: 'Ignore' } }] } });
    await createPods(ns, [
      { name: 's1', stage: 'PreCheck', labels: { app: 'strict' } },
      { name: 'l1', stage: 'PreCheck', labels: { app: 'lenient' } },
    ]);
    const reason = await eventually('s1 rejected with the cause', async () => (await detailOf(ns, 'strict', 's1'))?.rejectInfo?.[0]?.reason.match(/^Fail to do webhook request .*/)?.[0]);
    expect(reason).toMatch(new RegExp(`^Fail to do webhook request ${ns}/strict/hook, connection-failed, traceId `));
    await eventually('l1 passes', async () => (await detailOf(ns, 'lenient', 'l1'))?.passed);
    const events = await eventually('the WebhookFailureIgnored event', async () => {
      const list = await getJson<{ items: { reason: string; note: string; regarding: { name: string } }[] }>(['events.events.k8s.io', '-n', ns]);
      return list?.items.find((e) => e.reason === 'WebhookFailureIgnored');
    });
    expect(events.regarding.name).toBe('lenient');
    expect(events.note).toMatch(/failurePolicy Ignore lets l1 pass/);
    expect((await detailOf(ns, 'strict', 's1'))?.passed).toBe(false);
  });

  it('a hanging webhook does not delay the rules of other PodTransitionRules', async () => {
    const { ns } = await setup('ptr-hang', 30_000);
    await applyRule(ns, { name: 'stuck', spec: { selector: { matchLabels: { app: 'stuck' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/hang') } } }] } });
    await applyRule(ns, { name: 'quick', spec: { selector: { matchLabels: { app: 'quick' } }, rules: [{ name: 'ready', labelCheck: { requires: { matchLabels: { ok: 'true' } } } }] } });
    await createPods(ns, [{ name: 'h1', stage: 'PreCheck', labels: { app: 'stuck' } }]);
    await eventually('the hanging call is out', async () => (await detailOf(ns, 'stuck', 'h1'))?.rejectInfo?.[0]?.reason.startsWith('waiting for webhook response'));
    const started = Date.now();
    await createPods(ns, [{ name: 'q1', stage: 'PreCheck', labels: { app: 'quick', ok: 'true' } }]);
    await eventually('q1 decided', async () => (await detailOf(ns, 'quick', 'q1'))?.passed, { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await detailOf(ns, 'stuck', 'h1'))?.rejectInfo?.[0]?.reason).toMatch(/^waiting for webhook response/);
  });

  it('restarting the controller during a poll keeps the task: it is polled again, not re-posted', async () => {
    const { ns, ctl } = await setup('ptr-restart');
    await applyRule(ns, {
      name: 'slow',
      spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'hook', webhook: { clientConfig: { url: server.url('/poll'), poll: { url: server.url('/result'), intervalSeconds: 1, timeoutSeconds: 120 } } } }] },
    });
    await createPods(ns, [{ name: 'r1', stage: 'PreCheck' }]);
    const taskId = await eventually('a poll task in status', async () => (await ptrStatus(ns, 'slow'))?.ruleStates?.[0]?.webhookStatus?.taskStates?.[0]?.taskId);
    const posts = () => server.calls.filter((c) => c.path === '/poll' && (c.body as { resources: { name: string }[] }).resources[0]?.name === 'r1').length;
    expect(posts()).toBe(1);
    await ctl.stop();
    suite.dropCleanup(ctl.stop);
    const pollsBefore = server.calls.filter((c) => c.query.get('task-id') === taskId).length;

    const second = startController(ns, { webhook: { timeoutMs: 3_000 } });
    suite.onCleanup(second.stop);
    await eventually('the new controller polls the same task', () => Promise.resolve(server.calls.filter((c) => c.query.get('task-id') === taskId).length > pollsBefore), { timeoutMs: 15_000 });
    server.tasks.get(taskId)!.finished = true;
    await eventually('r1 passes', async () => second.gate.check((await podJson(ns, 'r1'))!, 'PreCheck').passed, { timeoutMs: 15_000 });
    expect(posts()).toBe(1);
  });

  it('deleting a PodTransitionRule removes its annotations, then its finalizer', async () => {
    const { ns } = await setup('ptr-delete');
    await applyRule(ns, { name: 'gone', spec: { selector: { matchLabels: { app: 'web' } }, rules: [{ name: 'ready', labelCheck: { requires: { matchLabels: { ok: 'true' } } } }] } });
    await createPods(ns, [{ name: 'd1', stage: 'PreCheck' }]);
    await eventually('annotated', async () => (await podJson(ns, 'd1'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/gone']);
    await kubectl(['delete', 'podtransitionrule', 'gone', '-n', ns, '--wait=true', '--timeout=30s']);
    expect(await getJson(['podtransitionrule', 'gone', '-n', ns])).toBeUndefined();
    expect((await podJson(ns, 'd1'))?.metadata?.annotations?.['detail.podtransitionrule.kusionstack.io/gone']).toBeUndefined();
  });
});
