// Three managers as shards of one ControllerRing, three CloneSets with PVCs, the test playing the
// sharder through the API (chaos/sharder-role.ts): each CloneSet and what it controls labelled
// with its shard; mid-rollout one CloneSet's pods are moved to the new shard (as the sharder moves
// controlled objects, without a drain), the CloneSet drained 2 s later and reassigned once the
// shard removed both labels, and one shard is SIGKILLed and its CloneSet reassigned after its Lease expired
// (the CloneSet before its pods: the new shard may see it first). Every CloneSet finishes its
// rollout; sampled throughout, no instance id has two pods, surge, maxUnavailable and the
// partition hold, no PVC is deleted under its pod; at the end every pod has its bound claim and a
// claim kept by name is the same object; every replica serves admission behind one address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources, mergePatch } from '@cloneset-suite/kube-runtime';
import { createTestNamespace, eventually, freePort } from '@cloneset-suite/local-cluster';
import { checkSettledClaims, type Snapshot } from '../src/chaos/invariants.ts';
import { cloneSetsOf, observerClient, pvcsOf } from './chaos/cluster-client.ts';
import { installForNamespace, ManagerReplica, waitForAdmission } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, PVC_TEMPLATE, setImage, waitForRollout } from './chaos/rollout.ts';
import { InvariantSampler, takeSnapshot } from './chaos/sampler.ts';
import { SharderRole } from './chaos/sharder-role.ts';
import { startTcpFront, type TcpFront } from '@cloneset-suite/controller-manager';

const SHARDS = ['shard-0', 'shard-1', 'shard-2'] as const;
const LEASE_MS = 6_000;
const client = observerClient();

interface Workload {
  name: string;
  shard: (typeof SHARDS)[number];
  replicas: number;
  partition: number;
  sampler?: InvariantSampler;
  /** PVC name -> uid before the rollout. */
  pvcsBefore?: Map<string, string>;
}

describe('a ring of three shards', () => {
  let ns: { name: string; remove: () => Promise<void> };
  let shards: ManagerReplica[] = [];
  let front: TcpFront;
  let uninstall: () => Promise<void>;
  let sharder: SharderRole;
  // cs-a stays on shard-0; cs-b is drained from shard-1 to shard-0; cs-c's shard-2 is killed and it goes to shard-1.
  const workloads: Workload[] = [
    { name: 'cs-a', shard: 'shard-0', replicas: 4, partition: 0 },
    { name: 'cs-b', shard: 'shard-1', replicas: 4, partition: 0 },
    { name: 'cs-c', shard: 'shard-2', replicas: 6, partition: 2 },
  ];

  beforeAll(async () => {
    ns = await createTestNamespace('chaos-ring');
    const name = `chaos-ring-${ns.name.slice(-6)}`;
    sharder = new SharderRole(client, ns.name, name);
    const frontPort = await freePort();
    const ports = [await freePort(), await freePort(), await freePort()];
    uninstall = await installForNamespace(ns.name, name, frontPort);
    front = await startTcpFront(frontPort, ports);
    shards = await Promise.all(
      SHARDS.map((shard, i) => ManagerReplica.create({ namespace: ns.name, name, webhookUrlPort: frontPort, webhookPort: ports[i]!, extraArgs: [`--controller-ring=${name}`, `--shard-name=${shard}`] })),
    );
    await Promise.all(shards.map((s) => s.start()));
    await waitForAdmission(ns.name);
  });

  afterAll(async () => {
    for (const w of workloads) await w.sampler?.stop();
    for (const s of shards) await s.stop();
    await front?.close();
    await uninstall?.();
    await ns?.remove();
  });

  it('moves CloneSets between shards mid-rollout, by drain and after a SIGKILL, without a pod twice or a PVC lost', async () => {
    for (const w of workloads) {
      const manifest = chaosCloneSet({ name: w.name, replicas: w.replicas, strategy: 'ReCreate', maxSurge: 0, maxUnavailable: 1, withPvcs: true }) as { metadata: Record<string, unknown>; spec: { updateStrategy: Record<string, unknown> } };
      manifest.metadata.labels = sharder.labelsFor(w.shard);
      manifest.spec.updateStrategy.partition = w.partition;
      await applyObject(ns.name, manifest);
    }
    for (const w of workloads) await waitForRollout(client, ns.name, w.name, 90_000);
    for (const w of workloads) {
      const cs = await cloneSetsOf(client).get(ns.name, w.name);
      const oldRevision = cs.status?.updateRevision ?? '';
      w.pvcsBefore = new Map((await pvcsOf(client).list({ namespace: ns.name, labelSelector: `app=${w.name}` })).items.map((c) => [c.metadata.name ?? '', c.metadata.uid ?? '']));
      w.sampler = new InvariantSampler(client, ns.name, `app=${w.name}`, { cloneSetUid: cs.metadata.uid ?? '', replicas: w.replicas, maxSurge: 0, maxUnavailable: 1, checkAvailability: true, withPvcs: true });
      // The partition holds across the move: never more pods off the old revision than it allows.
      w.sampler.addCheck((snap: Snapshot) => {
        const updated = snap.pods.filter((p) => !p.terminating && p.labels?.['controller-revision-hash'] !== oldRevision).length;
        return updated > w.replicas - w.partition ? [{ invariant: 'partition', detail: `${updated} pods updated > replicas ${w.replicas} - partition ${w.partition}` }] : [];
      });
      w.sampler.start();
    }
    for (const w of workloads) await setImage(ns.name, w.name, 'nginx:2.0');

    // SIGKILL shard-2 mid-rollout; while its Lease runs out, drain cs-b from shard-1.
    const [csB, csC] = [workloads[1]!, workloads[2]!];
    await shards[2]!.kill();
    const killedAt = Date.now();
    const uidB = (await cloneSetsOf(client).get(ns.name, csB.name)).metadata.uid ?? '';
    // The sharder moves controlled objects without a drain, beside the drain of their owner: here
    // the pods and PVCs go first (the revisions with the CloneSet) and the drain comes 2 s later,
    // so shard-1 holds cs-b while its pods are gone from its view (it must not replace them).
    const movedB = await sharder.moveControlled(uidB, 'shard-0', [Resources.pods, Resources.persistentVolumeClaims]);
    await new Promise((r) => setTimeout(r, 2_000));
    await sharder.drain(csB.name);
    await sharder.waitForDrainAcknowledged(csB.name, 30_000);
    await sharder.assign(csB.name, 'shard-0');
    const leaseWaitMs = await sharder.takeOverExpiredLease('shard-2', 4 * LEASE_MS);
    const movedC = await sharder.assign(csC.name, 'shard-1');
    const reassignedAfterKillMs = Date.now() - killedAt;

    for (const w of workloads) await eventually(`${w.name} rolled out to its partition`, async () => {
      const cs = await cloneSetsOf(client).get(ns.name, w.name);
      return cs.status?.observedGeneration === cs.metadata.generation && cs.status?.updatedReadyReplicas === w.replicas - w.partition && cs.status?.readyReplicas === w.replicas;
    }, { timeoutMs: 90_000, intervalMs: 500 });
    // Then the rest of cs-c, by its new shard.
    csC.partition = 0;
    await cloneSetsOf(client).patch(ns.name, csC.name, mergePatch({ spec: { updateStrategy: { partition: 0 } } }));
    for (const w of workloads) await waitForRollout(client, ns.name, w.name, 90_000);

    const problems: string[] = [];
    for (const w of workloads) {
      await w.sampler!.sampleOnce();
      await w.sampler!.stop();
      const snap = await takeSnapshot(client, ns.name, `app=${w.name}`);
      const bound = new Set((await pvcsOf(client).list({ namespace: ns.name, labelSelector: `app=${w.name}` })).items.filter((c) => c.status?.phase === 'Bound').map((c) => c.metadata.name ?? ''));
      problems.push(...checkSettledClaims(snap, [PVC_TEMPLATE], w.name, bound).map((p) => `${w.name}: ${p}`));
      // A claim kept under its name is the same object (never deleted and made again by a shard
      // that missed it); claims the ReCreate update let go went with their pods, which the
      // sampler checks (no claim deleted while its pod lives).
      const recreated = snap.pvcs.filter((c) => !c.terminating && w.pvcsBefore?.has(c.name) && w.pvcsBefore.get(c.name) !== c.uid).map((c) => c.name);
      if (recreated.length > 0) problems.push(`${w.name}: PVCs deleted and created again ${recreated.join(', ')}`);
      const ids = snap.pods.map((p) => p.instanceId);
      if (new Set(ids).size !== ids.length || ids.length !== w.replicas) problems.push(`${w.name}: pods ${snap.pods.map((p) => p.name).join(', ')} for ${w.replicas} replicas`);
      if (w.sampler!.violations.length > 0) problems.push(`${w.name}: ${w.sampler!.summary()} ${JSON.stringify(w.sampler!.violations)}`);
    }
    const shardsNow = await Promise.all(workloads.map((w) => sharder.shardOf(w.name)));
    console.log(
      `[chaos-sharding] cs-b drained with ${movedB} controlled objects moved; shard-2 killed, its Lease taken after ${leaseWaitMs} ms, cs-c (${movedC} objects) reassigned ${reassignedAfterKillMs} ms after the kill; shards now ${shardsNow.join(', ')}; samplers: ${workloads.map((w) => `${w.name} ${w.sampler!.summary()}`).join('; ')}`,
    );
    expect(shardsNow).toEqual(['shard-0', 'shard-0', 'shard-1']);
    expect(problems).toEqual([]);
    for (const w of workloads) expect(w.sampler!.samples).toBeGreaterThan(5);
  });
});
