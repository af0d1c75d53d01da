// `kubectl cloneset pods` on a pod a PodTransitionRule holds: a PodOpsLifecycle-controlled pod of
// a CloneSet is put into PreCheck by a test operating controller (the operating/operation-type
// labels, as the SDK writes them), a labelCheck rule rejects it, and the plugin names the phase,
// the operation, the rule and its reason; once the pod carries the label the rule requires, the
// rule lets it go and the plugin shows that too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';
import { kubectlWithPlugin } from './plugin-runner.ts';

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const OP_ID = 'e2e-restart';

describe('kubectl cloneset pods: a pod held by a PodTransitionRule', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const row = async (pod: string): Promise<string | undefined> => {
    const out = await kubectlWithPlugin(['cloneset', 'pods', 'clone/held', '-n', ns.name]);
    expect(out.code, out.stderr).toBe(0);
    return out.stdout.split('\n').find((l) => l.startsWith(`${pod} `));
  };

  beforeAll(async () => {
    ns = await createTestNamespace('held');
    manager = await ensureManager(ns.name);
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'held' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'held' } },
        template: { metadata: { labels: { app: 'held', 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } },
      },
    }));
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kusionstack.io/v1alpha1',
      kind: 'PodTransitionRule',
      metadata: { name: 'change-window' },
      spec: { selector: { matchLabels: { app: 'held' } }, rules: [{ name: 'approved', stage: 'PreCheck', labelCheck: { requires: { matchLabels: { approved: 'yes' } } } }] },
    }));
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('names the phase, the operation, the rule and its reason, then lets the pod go', async () => {
    const pod = await eventually('the pod online (ServiceAvailable)', async () => {
      const pods = (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=held']))?.items ?? [];
      return pods.find((p) => p.metadata.labels?.['podopslifecycle.cloneset-suite.io/phase'] === 'ServiceAvailable');
    }, { timeoutMs: 90_000 });
    const name = pod.metadata.name;
    expect((await row(name))?.split(/\s+/)[6]).toBe('ServiceAvailable');

    // The operating controller begins its operation: the pod enters PreCheck.
    const now = `${Date.now()}000000`;
    await kubectl(['label', 'pod', name, '-n', ns.name, `operating.podopslifecycle.kusionstack.io/${OP_ID}=${now}`, `operation-type.podopslifecycle.kusionstack.io/${OP_ID}=restart`]);

    const held = await eventually('the plugin shows the rule holding the pod', async () => {
      const line = await row(name);
      return line?.includes('change-window/approved') ? line : undefined;
    }, { timeoutMs: 60_000 });
    const cells = held.split(/\s+/);
    expect(cells[6]).toBe('PreCheck');
    expect(cells[7]).toBe(`${OP_ID}/restart`);
    expect(held).toMatch(/change-window\/approved: \S/);
    expect(held).toMatch(/\s\d+[smhdy]\s+\S+$/);

    // The rule passes once the pod carries the label it requires.
    await kubectl(['label', 'pod', name, '-n', ns.name, 'approved=yes']);
    await eventually('the rule lets the pod go', async () => {
      const line = await row(name);
      return line !== undefined && !line.includes('change-window/approved') && !/\sPreCheck\s/.test(line);
    }, { timeoutMs: 60_000 });
  });
});
