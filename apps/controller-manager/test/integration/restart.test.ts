// A restart restarts: `rollout restart` (the template annotation kubectl.kubernetes.io/restartedAt)
// on an InPlaceIfPossible CloneSet of controlled pods behind a Service re-creates every pod, one at
// a time under maxUnavailable 1, each through PodOpsLifecycle (an update announced as deleting the
// pod), and never deletes a pod an EndpointSlice still lists as ready. The manager process runs
// every controller (the built-in traffic cooperation included), pod webhooks in URL mode.
import path from 'node:path';
import { createTestNamespace, eventually, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, Resources, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import type { Pod } from '@cloneset-suite/podopslifecycle';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloneSet } from '../../../../packages/cloneset-controller/test/integration/support.ts';
import { installCrds } from '../../src/local-install.ts';
import { podWebhooksAnswer, releaseNamespace } from '../support/suite-namespace.ts';
import { PodHistory, WatchHistory } from '../support/pod-history.ts';
import { operationsAtWrites, servicesListingReady, type SliceVersion } from '../support/traffic-order.ts';
import { startUrlModeManager, type UrlModeManager } from '../support/url-mode-manager.ts';

const CONTROL = 'kusionstack.io/control';
const SERVICE_AVAILABLE = 'podopslifecycle.kusionstack.io/service-available';
const OPERATION_TYPE = 'operation-type.podopslifecycle.kusionstack.io/cloneset';
const PREPARING_TO_DELETE = 'podopslifecycle.kusionstack.io/preparing-to-delete';
const REPLICAS = 4;

const labelsOf = (pod: Pod | undefined): Record<string, string> => pod?.metadata?.labels ?? {};
const lifecycleKeys = (pod: Pod | undefined): string[] => Object.keys(labelsOf(pod)).filter((k) => /\.podopslifecycle\.kusionstack\.io\//.test(k));
const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
/** Serving as the CloneSet counts it for a controlled pod: Ready, service-available, in no operation. */
const isAvailable = (pod: Pod): boolean => !pod.metadata?.deletionTimestamp && isReady(pod) && labelsOf(pod)[SERVICE_AVAILABLE] !== undefined && lifecycleKeys(pod).length === 0;

describe('rollout restart of an InPlaceIfPossible CloneSet of controlled pods behind a Service', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let manager: UrlModeManager | undefined;
  let pods: PodHistory;
  let slices: WatchHistory<SliceVersion['object']>;

  const live = async (): Promise<Pod[]> => (await getJson<{ items: Pod[] }>(['pods', '-n', ns.name, '-l', 'app=web']))?.items.filter((p) => !p.metadata?.deletionTimestamp) ?? [];
  const sliceVersions = (): SliceVersion[] => slices.all.map((v) => ({ type: v.type, object: v.object }));
  const settled = (accept: (ps: Pod[]) => boolean): Promise<Pod[]> =>
    eventually('web: 4 pods available and listed by the Service, the status agreeing', async () => {
      const ps = await live();
      const cs = await getJson<{ status?: { availableReplicas?: number; updatedReadyReplicas?: number; observedGeneration?: number }; metadata?: { generation?: number } }>(['clone', 'web', '-n', ns.name]);
      const ok = ps.length === REPLICAS && ps.every((p) => isAvailable(p) && servicesListingReady(sliceVersions(), p.metadata!.uid!, String(2n ** 62n)).length > 0) && accept(ps);
      const statusOk = cs?.status?.observedGeneration === cs?.metadata?.generation && cs?.status?.availableReplicas === REPLICAS && cs?.status?.updatedReadyReplicas === REPLICAS;
      return ok && statusOk ? ps : undefined;
    }, { timeoutMs: 180_000, intervalMs: 300 });

  beforeAll(async () => {
    await installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
    ns = await createTestNamespace('restart');
    const client = new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()) });
    pods = new PodHistory(client, ns.name);
    slices = new WatchHistory(client, ns.name, Resources.endpointSlices);
    manager = await startUrlModeManager(ns.name, 'restart-test', ['--leader-elect=false']);
    await podWebhooksAnswer(ns.name);
  }, 120_000);

  afterAll(async () => {
    pods?.stop();
    slices?.stop();
    await manager?.stop();
    if (ns) await releaseNamespace(ns, 'clone');
  });

  it('re-creates every pod, one at a time, through PodOpsLifecycle, never while the Service lists it as ready', async () => {
    await kubectl(['create', 'service', 'clusterip', 'web', '-n', ns.name, '--tcp=80:80']);
    const manifest = cloneSet('web', REPLICAS, { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }, { labels: { [CONTROL]: 'true' }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } });
    await kubectl(['apply', '-n', ns.name, '-f', '-'], JSON.stringify(manifest));
    const before = await settled(() => true);
    const oldUids = new Set(before.map((p) => p.metadata!.uid!));
    const watchedFrom = pods.all.length;

    const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await kubectl(['patch', 'clone', 'web', '-n', ns.name, '--type=merge', '-p', JSON.stringify({ spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at } } } } })]);
    const after = await settled((ps) => ps.every((p) => !oldUids.has(p.metadata!.uid!)));
    expect(after.map((p) => p.spec?.containers?.[0]?.image)).toEqual(Array(REPLICAS).fill('nginx:1.27'));

    // Every old pod was deleted, each while no Service listed it as ready.
    const deletions = operationsAtWrites(pods.transitions(), sliceVersions(), 'web').filter((o) => o.what === 'deletion');
    expect(new Set(deletions.map((d) => d.pod))).toEqual(new Set(before.map((p) => p.metadata!.name!)));
    expect(deletions.filter((d) => d.listedBy.length > 0)).toEqual([]);

    // Each through an update operation announced as deleting the pod, before its deletion.
    for (const old of before) {
      const versions = pods.versions.get(old.metadata!.uid!) ?? [];
      const deleting = versions.findIndex((v) => v.metadata?.deletionTimestamp);
      expect(deleting, old.metadata!.name).toBeGreaterThan(0);
      expect(versions.slice(0, deleting).some((v) => labelsOf(v)[OPERATION_TYPE] === 'update' && labelsOf(v)[PREPARING_TO_DELETE] !== undefined), old.metadata!.name).toBe(true);
    }

    // Never more than maxUnavailable (1) unavailable, never more than 4 pods: replay every pod
    // version the watch delivered since the restart, in order.
    const state = new Map<string, Pod>();
    for (const v of pods.all.slice(0, watchedFrom)) state.set(v.object.metadata!.uid!, v.object);
    let worst = 0;
    let most = 0;
    for (const v of pods.all.slice(watchedFrom)) {
      if (v.type === 'DELETED') state.delete(v.object.metadata!.uid!);
      else state.set(v.object.metadata!.uid!, v.object);
      const active = [...state.values()].filter((p) => labelsOf(p).app === 'web' && !p.metadata?.deletionTimestamp);
      worst = Math.max(worst, REPLICAS - active.filter(isAvailable).length);
      most = Math.max(most, active.length);
    }
    expect(worst).toBe(1);
    expect(most).toBeLessThanOrEqual(REPLICAS);
  });
});
