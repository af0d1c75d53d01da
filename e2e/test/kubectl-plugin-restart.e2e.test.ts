// `kubectl cloneset rollout restart` through the real kubectl against a running controller-manager,
// on an InPlaceIfPossible CloneSet: the command stamps the template, follows the rollout with
// `rollout status` lines and returns 0 only once every pod was re-created (a restart restarts,
// whatever the strategy); `--watch=false` returns right after the stamp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';
import { kubectlWithPlugin, type Run } from './plugin-runner.ts';

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  status?: { containerStatuses?: { restartCount: number }[] };
}

describe('kubectl cloneset rollout restart', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const plugin = (...args: string[]): Promise<Run> => kubectlWithPlugin(['cloneset', ...args, '-n', ns.name]);
  const livePods = async (): Promise<Pod[]> => ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=web']))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);

  beforeAll(async () => {
    ns = await createTestNamespace('restart');
    manager = await ensureManager(ns.name);
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: 'web:1' }] } },
      },
    }));
    expect((await plugin('rollout', 'status', 'clone/web', '--timeout=120s')).code).toBe(0);
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('re-creates every pod and returns once the rollout is done, printing rollout status lines', async () => {
    const before = await livePods();
    expect(before).toHaveLength(3);
    const restart = await plugin('rollout', 'restart', 'clone/web', '--timeout=180s');
    expect(restart.stderr).toBe('');
    expect(restart.code).toBe(0);
    const lines = restart.stdout.trim().split('\n');
    expect(lines[0]).toBe('cloneset.apps.kruise.io/web restarted');
    expect(lines.at(-1)).toBe('clone "web" successfully rolled out');
    expect(lines.slice(1, -1).every((l) => l.startsWith('Waiting for clone'))).toBe(true);
    // Done means done: when the command returns, no pod of before is left, and none restarted in place.
    const after = await livePods();
    expect(after).toHaveLength(3);
    expect(after.filter((p) => before.some((b) => b.metadata.uid === p.metadata.uid))).toEqual([]);
    for (const p of after) expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('--watch=false returns right after the stamp; the pods are re-created all the same', async () => {
    const before = await livePods();
    const restart = await plugin('rollout', 'restart', 'clone/web', '--watch=false');
    expect(restart).toMatchObject({ code: 0, stdout: 'cloneset.apps.kruise.io/web restarted\n', stderr: '' });
    await eventually('every pod re-created', async () => {
      const now = await livePods();
      return now.length === 3 && now.every((p) => !before.some((b) => b.metadata.uid === p.metadata.uid));
    }, { timeoutMs: 180_000, intervalMs: 500 });
    expect((await plugin('rollout', 'status', 'clone/web', '--timeout=120s')).code).toBe(0);
  });
});
