// `kubectl cloneset plan` through the real kubectl, against a running controller-manager: the
// plan printed while a rollout is held is what the controller then does once it is released.
// - A partition (the CloneSet paused while it changes, so no pass runs between the plan and the
//   release): the plan names the pods resuming would update and the pods the partition keeps;
//   after `rollout resume` exactly those pods are updated. Then with maxUnavailable 1: the plan
//   names the pod updated first and the pod the budget holds back, and they are updated in that
//   order (minReadySeconds keeps the second a few seconds behind the first).
// - A PodTransitionRule: the plan names the pod held in PreCheck, the rule and its reason; once
//   the pod carries the label the rule wants, that pod is the one updated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';
import { kubectlWithPlugin } from './plugin-runner.ts';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string };
}
interface CloneSet {
  metadata: { generation: number };
  status?: { observedGeneration?: number; updateRevision?: string; updatedReplicas?: number; updatedReadyReplicas?: number; availableReplicas?: number; replicas?: number };
}
interface Wait {
  kind: string;
  pods?: string[];
  transitionRule?: string;
  rule?: string;
  stage?: string;
  reason?: string;
  message: string;
}
interface Action {
  action: string;
  pod?: string;
  revision?: string;
}
interface Pass {
  actions: Action[];
  waits: Wait[];
}
interface Plan extends Pass {
  settled: boolean;
  cloneSet: { updateRevision: string; currentRevision: string };
  onResume?: Pass;
}

const REVISION = 'controller-revision-hash';
const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe('kubectl cloneset plan', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const plugin = async (...args: string[]): Promise<string> => {
    const run = await kubectlWithPlugin(['cloneset', ...args, '-n', ns.name]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return run.stdout;
  };
  const plan = async (name: string): Promise<Plan> => JSON.parse(await plugin('plan', `clone/${name}`, '-o', 'json')) as Plan;
  const cloneSet = async (name: string): Promise<CloneSet> => (await getJson<CloneSet>(['clonesets.v1alpha1.apps.kruise.io', name, '-n', ns.name]))!;
  const pods = async (app: string): Promise<Pod[]> => ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', `app=${app}`]))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
  const podsAt = async (app: string, revision: string): Promise<string[]> => sorted((await pods(app)).filter((p) => p.metadata.labels?.[REVISION] === revision).map((p) => p.metadata.name));
  const patch = (name: string, spec: object): Promise<string> => kubectl(['patch', 'clonesets.v1alpha1.apps.kruise.io', name, '-n', ns.name, '--type=merge', '-p', JSON.stringify({ spec })]);
  /** The controller has finished a pass on the latest spec. */
  const observed = (name: string): Promise<CloneSet> =>
    eventually(`clone/${name} observed`, async () => {
      const cs = await cloneSet(name);
      return cs.status?.observedGeneration === cs.metadata.generation ? cs : undefined;
    }, { timeoutMs: 60_000 });
  const rolledOut = (name: string, updated: number): Promise<CloneSet> =>
    eventually(`clone/${name}: ${updated} updated and available`, async () => {
      const cs = await cloneSet(name);
      const s = cs.status;
      return s?.observedGeneration === cs.metadata.generation && s.updatedReadyReplicas === updated && s.availableReplicas === s.replicas ? cs : undefined;
    }, { timeoutMs: 120_000 });
  /** An InPlaceIfPossible CloneSet of image web:1 whose pods are labelled app=<name>. */
  const applyCloneSet = (name: string, o: { replicas: number; maxUnavailable: number; minReadySeconds?: number; labels?: Record<string, string> }): Promise<string> =>
    kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name },
      spec: {
        replicas: o.replicas,
        ...(o.minReadySeconds ? { minReadySeconds: o.minReadySeconds } : {}),
        selector: { matchLabels: { app: name } },
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: o.maxUnavailable },
        template: { metadata: { labels: { app: name, ...o.labels } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } },
      },
    }));
  const updateTime = (pod: Pod): number => Date.parse((JSON.parse(pod.metadata.annotations?.['apps.kruise.io/inplace-update-state'] ?? '{}') as { updateTimestamp?: string }).updateTimestamp ?? '');

  beforeAll(async () => {
    ns = await createTestNamespace('plan');
    manager = await ensureManager(ns.name);
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('a rollout held by a partition: the plan names the pods resuming updates and the pods the partition keeps; resuming updates exactly those', async () => {
    await applyCloneSet('web', { replicas: 1, minReadySeconds: 2, maxUnavailable: 2 });
    for (const replicas of [2, 3, 4]) {
      await rolledOut('web', replicas - 1);
      await patch('web', { replicas });
    }
    const first = await rolledOut('web', 4);
    const oldRevision = first.status!.updateRevision!;
    expect((await plan('web')).settled).toBe(true);
    expect(await plugin('plan', 'clone/web')).toContain(`Nothing to do: every pod is at revision ${oldRevision} and nothing waits.`);

    // Paused first, so no pass acts between the plan and the release.
    await plugin('rollout', 'pause', 'clone/web');
    await patch('web', { updateStrategy: { partition: 2 }, template: { spec: { containers: [{ name: 'main', image: 'web:2' }] } } });
    await observed('web');
    const held = await plan('web');
    const newRevision = held.cloneSet.updateRevision;
    expect(newRevision).not.toBe(oldRevision);
    expect(held.actions).toEqual([]);
    expect(held.waits).toMatchObject([{ kind: 'paused', pods: await podsAt('web', oldRevision) }]);
    const resumed = held.onResume!;
    const toUpdate = sorted(resumed.actions.filter((a) => a.action === 'updateInPlace').map((a) => a.pod!));
    expect(resumed.actions.every((a) => a.action === 'updateInPlace' && a.revision === newRevision)).toBe(true);
    expect(toUpdate).toHaveLength(2);
    const kept = resumed.waits.find((w) => w.kind === 'partition')!;
    expect(sorted([...toUpdate, ...kept.pods!])).toEqual(await podsAt('web', oldRevision));
    const text = await plugin('plan', 'clone/web');
    expect(text).toMatch(/^Waiting for:\n {2}paused {3}/m);
    expect(text).toContain('On resume (kubectl cloneset rollout resume clone/web), the next pass would:');
    for (const pod of toUpdate) expect(text).toMatch(new RegExp(`^ {4}${pod} +updateInPlace +${newRevision} +images main=web:2$`, 'm'));
    expect(text).toContain(`partition 2 keeps ${kept.pods!.join(', ')} at revision ${oldRevision}`);

    await plugin('rollout', 'resume', 'clone/web');
    await rolledOut('web', 2);
    expect(await podsAt('web', newRevision)).toEqual(toUpdate);
    expect(await podsAt('web', oldRevision)).toEqual(kept.pods);

    // The rest, one at a time: the plan says which goes first and that the budget holds the other.
    await plugin('rollout', 'pause', 'clone/web');
    await patch('web', { updateStrategy: { partition: 0, maxUnavailable: 1 } });
    await observed('web');
    const next = (await plan('web')).onResume!;
    const [firstPod] = next.actions.filter((a) => a.action === 'updateInPlace').map((a) => a.pod!);
    const budget = next.waits.find((w) => w.kind === 'maxUnavailable')!;
    expect(next.actions).toHaveLength(1);
    expect(sorted([firstPod!, ...budget.pods!])).toEqual(kept.pods);
    await plugin('rollout', 'resume', 'clone/web');
    await rolledOut('web', 4);
    const byName = new Map((await pods('web')).map((p) => [p.metadata.name, p]));
    const secondPod = budget.pods![0]!;
    expect(updateTime(byName.get(firstPod!)!)).toBeLessThan(updateTime(byName.get(secondPod)!));
    expect((await plan('web')).settled).toBe(true);
  });

  it('a rollout held by a PodTransitionRule: the plan names the pod, the rule and its reason; once released that pod is the one updated', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'change-window' },
      spec: { selector: { matchLabels: { app: 'ptr' } }, rules: [{ name: 'approved', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { approved: 'yes' } } } }] },
    }));
    await applyCloneSet('ptr', { replicas: 2, maxUnavailable: 1, labels: { 'kusionstack.io/control': 'true' } });
    const oldRevision = (await rolledOut('ptr', 2)).status!.updateRevision!;
    await patch('ptr', { template: { spec: { containers: [{ name: 'main', image: 'web:2' }] } } });

    const ruleWait = (p: Plan): Wait | undefined => p.waits.find((w) => w.kind === 'podTransitionRule');
    const held = await eventually('the plan naming the pod the rule holds', async () => {
      const p = await plan('ptr');
      return ruleWait(p) ? p : undefined;
    }, { timeoutMs: 60_000 });
    const wait = ruleWait(held)!;
    expect(wait).toMatchObject({ transitionRule: 'change-window', rule: 'approved', stage: 'PreCheck' });
    expect(wait.reason).toContain('approved');
    const [heldPod] = wait.pods!;
    const [otherPod] = (await podsAt('ptr', oldRevision)).filter((n) => n !== heldPod);
    expect(held.actions).toEqual([]);
    expect(held.waits.find((w) => w.kind === 'maxUnavailable')?.pods).toEqual([otherPod]);
    const text = await plugin('plan', 'clone/ptr');
    expect(text).toMatch(new RegExp(`^ {2}podTransitionRule +waiting for PodTransitionRule change-window rule approved to pass 1 pod\\(s\\): ${heldPod} held in PreCheck for update: .*approved`, 'm'));

    await kubectl(['label', 'pod', heldPod!, '-n', ns.name, 'approved=yes']);
    const newRevision = held.cloneSet.updateRevision;
    await eventually(`${heldPod} updated`, async () => (await podsAt('ptr', newRevision)).includes(heldPod!), { timeoutMs: 60_000 });
    expect(await podsAt('ptr', newRevision)).toEqual([heldPod]);
    // Then the other pod, held by the same rule in turn.
    const next = await eventually('the plan naming the other pod', async () => {
      const w = ruleWait(await plan('ptr'));
      return w?.pods?.[0] === otherPod ? w : undefined;
    }, { timeoutMs: 60_000 });
    expect(next).toMatchObject({ transitionRule: 'change-window', rule: 'approved' });
    await kubectl(['label', 'pod', otherPod!, '-n', ns.name, 'approved=yes']);
    await rolledOut('ptr', 2);
    expect(await podsAt('ptr', newRevision)).toEqual(sorted([heldPod!, otherPod!]));
  });
});
