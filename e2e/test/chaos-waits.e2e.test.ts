// Nothing waits silently: for each state in which a CloneSet cannot make progress,
// whoever looks (`kubectl describe clone`, the rule's status, the pod's Events) is told what it
// waits for. One test per state, each asserting the reason and that the message names the thing
// waited for, then removing the obstacle and checking the CloneSet moves on and the condition clears:
// - a ResourceQuota refusing pods: FailedCreate Event + FailedScale condition naming the quota;
// - a terminating pod holding the name an instance id needs: WaitingForPodDeletion Event + FailedScale naming the pod;
// - a lifecycle hook never released (preDelete finalizer, inPlaceUpdate label): a
//   WaitingForLifecycleHook Event and PodsHeld naming the hook and the pod; FailedScale /
//   FailedUpdate stay clear, as OpenKruise sets them only on errors (a hook taking its time is not one);
// - a pod held in PodOpsLifecycle PreCheck by a PodTransitionRule: the pod's PreCheck Event, the
//   rule's status naming the rule and the missing label, and on the CloneSet a
//   WaitingForPodTransitionRule Event and PodsHeld naming the rule and how many pods it holds;
// - a pod admission webhook that is down: FailedCreate Event + FailedScale naming the webhook.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePatch, Resources } from '@cloneset-suite/kube-runtime';
import { eventually, freePort, kubectl } from '@cloneset-suite/local-cluster';
import { cloneSetsOf, observerClient, podsOf, releaseFinalizers } from './chaos/cluster-client.ts';
import { startChaosEnvironment, type ChaosEnvironment } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, setImage, waitForRollout, type ChaosCloneSet } from './chaos/rollout.ts';

const client = observerClient();
const HOLD = 'chaos.cloneset-suite.io/hold';

interface EventV1 {
  reason?: string;
  note?: string;
  type?: string;
  regarding?: { kind?: string; name?: string };
}

const eventsAbout = async (namespace: string, kind: string, name: string): Promise<EventV1[]> =>
  ((await client.resource<EventV1 & { metadata: object }>(Resources.events).list({ namespace })).items as EventV1[]).filter((e) => e.regarding?.kind === kind && e.regarding.name === name);

const conditionOf = async (namespace: string, name: string, type: string) => (await cloneSetsOf(client).get(namespace, name)).status?.conditions?.find((c) => c.type === type);

/** Waits for an Event with `reason` about the object and returns its note, which must name every one of `names`. */
async function reportedEvent(namespace: string, kind: string, name: string, reason: string, names: readonly string[]): Promise<string> {
  const note = await eventually(`${kind} ${name}: a ${reason} Event naming ${names.join(', ')}`, async () =>
    (await eventsAbout(namespace, kind, name)).find((e) => e.reason === reason && names.every((n) => e.note?.includes(n)))?.note, { timeoutMs: 60_000, intervalMs: 500 });
  return note;
}

/** Waits for the condition True with a message naming every one of `names`; returns the message. */
async function reportedCondition(namespace: string, name: string, type: string, names: readonly string[]): Promise<string> {
  return eventually(`CloneSet ${name}: ${type} True naming ${names.join(', ')}`, async () => {
    const c = await conditionOf(namespace, name, type);
    return c?.status === 'True' && names.every((n) => c.message?.includes(n)) ? c.message : undefined;
  }, { timeoutMs: 60_000, intervalMs: 500 });
}

/** Fails when the condition is True now: an ordinary wait must not read as a failure. */
async function expectNotTrue(namespace: string, name: string, type: string): Promise<void> {
  const c = await conditionOf(namespace, name, type);
  expect(c?.status === 'True' ? `${type} True: ${c.message ?? ''}` : undefined).toBeUndefined();
}

async function clearedCondition(namespace: string, name: string, type: string): Promise<void> {
  await eventually(`CloneSet ${name}: ${type} cleared`, async () => (await conditionOf(namespace, name, type))?.status !== 'True', { timeoutMs: 120_000, intervalMs: 500 });
}

const podNames = async (namespace: string, app: string, all = false): Promise<string[]> =>
  (await podsOf(client).list({ namespace, labelSelector: `app=${app}` })).items.filter((p) => all || !p.metadata.deletionTimestamp).map((p) => p.metadata.name ?? '').sort();

describe('nothing waits silently: every wait is reported with what it waits for', () => {
  let env: ChaosEnvironment;
  let ns: string;
  const base = (name: string, o: Partial<ChaosCloneSet> = {}): Record<string, unknown> =>
    chaosCloneSet({ name, replicas: 1, strategy: 'ReCreate', maxSurge: 0, maxUnavailable: 1, withPvcs: false, ...o });
  const summary: string[] = [];

  beforeAll(async () => {
    env = await startChaosEnvironment('chaos-waits');
    ns = env.namespace;
  });

  afterAll(async () => {
    console.log(`[chaos-waits] what each wait showed:\n${summary.join('\n')}`);
    if (ns) await releaseFinalizers(client, ns);
    await env?.teardown();
  });

  it('a ResourceQuota that refuses pods: FailedCreate Event and FailedScale naming the quota', async () => {
    const quota = 'chaos-no-pods';
    await kubectl(['create', 'quota', quota, '-n', ns, '--hard=pods=0']);
    try {
      await applyObject(ns, base('quota'));
      const note = await reportedEvent(ns, 'CloneSet', 'quota', 'FailedCreate', [quota]);
      const message = await reportedCondition(ns, 'quota', 'FailedScale', [quota]);
      summary.push(`  quota: Event FailedCreate "${note.slice(0, 160)}"; FailedScale "${message.slice(0, 160)}"`);
    } finally {
      await kubectl(['delete', 'quota', quota, '-n', ns]);
    }
    await waitForRollout(client, ns, 'quota', 120_000);
    await clearedCondition(ns, 'quota', 'FailedScale');
  });

  it('a terminating pod holding the name an instance id needs: WaitingForPodDeletion Event and FailedScale naming the pod', async () => {
    // PVC templates make the id (and so the pod name) reused; a finalizer keeps the old pod terminating.
    await applyObject(ns, base('reuse', { withPvcs: true }));
    await waitForRollout(client, ns, 'reuse', 120_000);
    const [pod] = await podNames(ns, 'reuse');
    await podsOf(client).patch(ns, pod!, mergePatch({ metadata: { finalizers: [HOLD] } }));
    await podsOf(client).delete(ns, pod!);
    const note = await reportedEvent(ns, 'CloneSet', 'reuse', 'WaitingForPodDeletion', [pod!]);
    const message = await reportedCondition(ns, 'reuse', 'FailedScale', [pod!]);
    summary.push(`  terminating pod: Event WaitingForPodDeletion "${note.slice(0, 160)}"; FailedScale "${message.slice(0, 160)}"`);
    await podsOf(client).patch(ns, pod!, mergePatch({ metadata: { finalizers: null } }));
    await waitForRollout(client, ns, 'reuse', 120_000);
    await clearedCondition(ns, 'reuse', 'FailedScale');
  });

  it('a preDelete finalizer hook never released: WaitingForLifecycleHook Event and PodsHeld naming the hook, its finalizer and the pod; no FailedScale', async () => {
    const finalizer = 'chaos.cloneset-suite.io/pre-delete';
    const cs = base('predelete', { replicas: 2 }) as { spec: Record<string, unknown> };
    cs.spec.lifecycle = { preDelete: { finalizersHandler: [finalizer] } };
    await applyObject(ns, cs);
    await waitForRollout(client, ns, 'predelete', 120_000);
    // As the hook's owner would: its finalizer on every pod it wants to see before deletion.
    for (const pod of await podNames(ns, 'predelete')) await podsOf(client).patch(ns, pod, mergePatch({ metadata: { finalizers: [finalizer] } }));
    await cloneSetsOf(client).patch(ns, 'predelete', mergePatch({ spec: { replicas: 1 } }));
    const held = await eventually('a pod held in PreparingDelete', async () =>
      (await podsOf(client).list({ namespace: ns, labelSelector: 'app=predelete,lifecycle.apps.kruise.io/state=PreparingDelete' })).items[0]?.metadata.name, { timeoutMs: 60_000 });
    const note = await reportedEvent(ns, 'CloneSet', 'predelete', 'WaitingForLifecycleHook', ['preDelete', finalizer, held]);
    const message = await reportedCondition(ns, 'predelete', 'PodsHeld', ['preDelete', finalizer, held]);
    await expectNotTrue(ns, 'predelete', 'FailedScale');
    summary.push(`  preDelete hook: pod ${held} in PreparingDelete; Event WaitingForLifecycleHook "${note}"; PodsHeld "${message}"`);
    await podsOf(client).patch(ns, held, mergePatch({ metadata: { finalizers: null } }));
    await clearedCondition(ns, 'predelete', 'PodsHeld');
    await eventually('the released pod deleted', async () => !(await podNames(ns, 'predelete', true)).includes(held), { timeoutMs: 60_000 });
  });

  it('an inPlaceUpdate label hook never released: WaitingForLifecycleHook Event and PodsHeld naming the hook, its label and the pod; no FailedUpdate', async () => {
    const cs = base('inplace', { strategy: 'InPlaceIfPossible' }) as { spec: Record<string, unknown> & { template: { metadata: { labels: Record<string, string> } } } };
    cs.spec.lifecycle = { inPlaceUpdate: { labelsHandler: { [HOLD]: 'true' } } };
    cs.spec.template.metadata.labels[HOLD] = 'true';
    await applyObject(ns, cs);
    await waitForRollout(client, ns, 'inplace', 120_000);
    const [pod] = await podNames(ns, 'inplace');
    await kubectl(['patch', 'clone', 'inplace', '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:2.0' }])]);
    await eventually('the pod held in PreparingUpdate', async () => (await podsOf(client).get(ns, pod!)).metadata.labels?.['lifecycle.apps.kruise.io/state'] === 'PreparingUpdate', { timeoutMs: 60_000 });
    const note = await reportedEvent(ns, 'CloneSet', 'inplace', 'WaitingForLifecycleHook', ['inPlaceUpdate', `${HOLD}=true`, pod!]);
    const message = await reportedCondition(ns, 'inplace', 'PodsHeld', ['inPlaceUpdate', `${HOLD}=true`, pod!]);
    await expectNotTrue(ns, 'inplace', 'FailedUpdate');
    summary.push(`  inPlaceUpdate hook: pod ${pod} in PreparingUpdate; Event WaitingForLifecycleHook "${note}"; PodsHeld "${message}"`);
    await podsOf(client).patch(ns, pod!, mergePatch({ metadata: { labels: { [HOLD]: null } } }));
    await clearedCondition(ns, 'inplace', 'PodsHeld');
    await waitForRollout(client, ns, 'inplace', 120_000);
  });

  it('a pod held in PreCheck by a PodTransitionRule: the pod\'s PreCheck Event, the rule\'s status naming the rule and the missing label, the CloneSet\'s WaitingForPodTransitionRule Event and PodsHeld naming the rule and the pod count', async () => {
    const approval = 'chaos.cloneset-suite.io/approved';
    await applyObject(ns, {
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'approval' },
      spec: { selector: { matchLabels: { app: 'prechecked' } }, rules: [{ name: 'needs-approval', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { [approval]: 'true' } } } }] },
    });
    const cs = base('prechecked', { strategy: 'InPlaceIfPossible' }) as { spec: { template: { metadata: { labels: Record<string, string> } } } };
    cs.spec.template.metadata.labels['kusionstack.io/control'] = 'true';
    await applyObject(ns, cs);
    await waitForRollout(client, ns, 'prechecked', 120_000);
    const [pod] = await podNames(ns, 'prechecked');
    await setImage(ns, 'prechecked', 'nginx:2.0');
    const note = await reportedEvent(ns, 'Pod', pod!, 'PreCheck', ['cloneset']);
    type Rule = { status?: { details?: { name: string; stage?: string; passed: boolean; rejectInfo?: { ruleName: string; reason: string }[] }[] } };
    const detail = await eventually('the rule status rejecting the pod', async () => {
      const rule = await client.resource<Rule & { metadata: object }>({ group: 'apps.kusionstack.io', version: 'v1alpha1', resource: 'podtransitionrules', kind: 'PodTransitionRule', namespaced: true }).get(ns, 'approval');
      return rule.status?.details?.find((d) => d.name === pod && d.stage === 'PreCheck' && !d.passed);
    }, { timeoutMs: 60_000, intervalMs: 500 });
    expect(detail.rejectInfo?.[0]?.ruleName).toBe('needs-approval');
    expect(detail.rejectInfo?.[0]?.reason).toContain(approval);
    const csNote = await reportedEvent(ns, 'CloneSet', 'prechecked', 'WaitingForPodTransitionRule', ['approval', 'needs-approval', '1 pod(s)', pod!, approval]);
    const message = await reportedCondition(ns, 'prechecked', 'PodsHeld', ['approval', 'needs-approval', '1 pod(s)', pod!, 'PreCheck']);
    await expectNotTrue(ns, 'prechecked', 'FailedUpdate');
    summary.push(`  PreCheck: pod Event PreCheck "${note.slice(0, 160)}"; rule status ${JSON.stringify(detail.rejectInfo)}; CloneSet Event WaitingForPodTransitionRule "${csNote}"; PodsHeld "${message}"`);
    await kubectl(['label', 'pod', pod!, '-n', ns, `${approval}=true`]);
    await waitForRollout(client, ns, 'prechecked', 120_000);
    await clearedCondition(ns, 'prechecked', 'PodsHeld');
  });

  it('a pod admission webhook that is down: FailedCreate Event and FailedScale naming the webhook', async () => {
    const config = `chaos-waits-down-${ns.slice(-6)}`;
    const webhook = 'down.chaos.cloneset-suite.io';
    await applyObject(ns, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: config },
      webhooks: [{
        name: webhook,
        clientConfig: { url: `https://127.0.0.1:${await freePort()}/validate` },
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 2,
      }],
    });
    try {
      await applyObject(ns, base('webhook-down'));
      const note = await reportedEvent(ns, 'CloneSet', 'webhook-down', 'FailedCreate', [webhook]);
      const message = await reportedCondition(ns, 'webhook-down', 'FailedScale', [webhook]);
      summary.push(`  webhook down: Event FailedCreate "${note.slice(0, 200)}"; FailedScale "${message.slice(0, 200)}"`);
    } finally {
      await kubectl(['delete', 'validatingwebhookconfiguration', config, '--ignore-not-found']);
    }
    await waitForRollout(client, ns, 'webhook-down', 120_000);
    await clearedCondition(ns, 'webhook-down', 'FailedScale');
  });
});
