// OpenKruise's e2e spec "CloneSet regard preparing-update pod as update when scaling", step for
// step, against the controller-manager at its default gates: PreparingUpdateAsUpdate is on here
// (OpenKruise runs its CI with it; at its default, off, the re-created pod below comes at the new
// revision and more pods are updated than the partition allows).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNamespace, eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { ensureManager, type E2EManager } from './manager.ts';

const NAME = 'prepare';
const HOOK = 'preparing-update-hook';

interface Pod {
  metadata: { name: string; uid: string; labels: Record<string, string>; deletionTimestamp?: string };
  status: { conditions?: { type: string; status: string }[] };
}
interface CloneSet {
  status?: { readyReplicas?: number; updateRevision?: string; observedGeneration?: number };
  metadata: { generation: number };
}

const isPreparingUpdate = (p: Pod): boolean => p.metadata.labels['lifecycle.apps.kruise.io/state'] === 'PreparingUpdate';

describe('a pod held in PreparingUpdate counts as updated when scaling (default gates)', () => {
  let manager: E2EManager;
  let ns: { name: string; remove: () => Promise<void> };
  const cloneSet = async (): Promise<CloneSet> => (await getJson<CloneSet>(['clonesets.v1alpha1.apps.kruise.io', NAME, '-n', ns.name]))!;
  const pods = async (): Promise<Pod[]> =>
    ((await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', `app=${NAME}`]))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
  /** The spec's groupPodsByRevision: updated, current, and how many wait in PreparingUpdate. */
  const groups = async (): Promise<{ updated: number; current: number; preparing: number; all: Pod[] }> => {
    const [cs, all] = [await cloneSet(), await pods()];
    const updated = all.filter((p) => p.metadata.labels['controller-revision-hash'] === cs.status?.updateRevision).length;
    return { updated, current: all.length - updated, preparing: all.filter(isPreparingUpdate).length, all };
  };
  const settlesAt = (want: { updated: number; current: number; preparing: number }, what: string) =>
    eventually(what, async () => {
      const g = await groups();
      return g.updated === want.updated && g.current === want.current && g.preparing === want.preparing ? g : undefined;
    }, { timeoutMs: 60_000 });
  const patchCloneSet = (patch: unknown) => kubectl(['patch', 'clonesets.v1alpha1.apps.kruise.io', NAME, '-n', ns.name, '--type=merge', '-p', JSON.stringify(patch)]);

  beforeAll(async () => {
    ns = await createTestNamespace('e2e-prepare');
    manager = await ensureManager(ns.name);
  });
  afterAll(async () => {
    await manager?.stop();
    await ns?.remove();
  });

  it('re-creates and scales out at the current revision while a pod waits in its in-place hook, then rolls out', async () => {
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'CloneSet',
      metadata: { name: NAME },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: NAME } },
        lifecycle: { inPlaceUpdate: { labelsHandler: { [HOOK]: 'true' } } },
        updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '50%', partition: '99%' },
        template: {
          metadata: { labels: { app: NAME, [HOOK]: 'true' } },
          spec: { containers: [{ name: 'nginx', image: 'docker.io/library/nginx:alpine' }] },
        },
      },
    }));
    await eventually('2 ready replicas', async () => (await cloneSet()).status?.readyReplicas === 2, { timeoutMs: 90_000 });

    // partition 99% of 2 is 1: one pod is to be updated, and its hook holds it in PreparingUpdate.
    await patchCloneSet({ spec: { template: { spec: { containers: [{ name: 'nginx', image: 'docker.io/library/nginx:mainline-alpine' }] } } } });
    const held = await settlesAt({ updated: 0, current: 2, preparing: 1 }, 'one pod held in PreparingUpdate');

    // Re-create the other pod: it must come back at the current revision.
    const other = held.all.find((p) => !isPreparingUpdate(p))!;
    await kubectl(['delete', 'pod', other.metadata.name, '-n', ns.name, '--wait=false']);
    const rebuilt = await eventually('the deleted pod re-created', async () => {
      const g = await groups();
      return g.all.length === 2 && !g.all.some((p) => p.metadata.uid === other.metadata.uid) ? g : undefined;
    }, { timeoutMs: 60_000 });
    expect({ updated: rebuilt.updated, current: rebuilt.current, preparing: rebuilt.preparing }).toEqual({ updated: 0, current: 2, preparing: 1 });

    // Scale out: the new pod comes at the current revision too.
    await patchCloneSet({ spec: { replicas: 3 } });
    await settlesAt({ updated: 0, current: 3, preparing: 1 }, '3 pods, none updated, one held');

    // Release the hook: that one pod is updated, and only it.
    const preparing = (await pods()).find(isPreparingUpdate)!;
    await kubectl(['label', 'pod', preparing.metadata.name, '-n', ns.name, `${HOOK}-`]);
    await settlesAt({ updated: 1, current: 2, preparing: 0 }, 'the released pod updated');

    // No partition: the other two wait in their hooks, and roll out once released.
    await patchCloneSet({ spec: { updateStrategy: { partition: null, maxUnavailable: '100%' } } });
    const waiting = await settlesAt({ updated: 1, current: 2, preparing: 2 }, 'the other two held in PreparingUpdate');
    for (const p of waiting.all.filter(isPreparingUpdate)) await kubectl(['label', 'pod', p.metadata.name, '-n', ns.name, `${HOOK}-`]);
    await settlesAt({ updated: 3, current: 0, preparing: 0 }, 'all three updated');
  });
});
