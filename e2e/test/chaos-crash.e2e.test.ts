// Manager crash during rollouts: SIGKILL the controller-manager process at seeded
// random points of ReCreate and InPlaceIfPossible rollouts (maxSurge, maxUnavailable, PVC
// templates), restart it each time, and sample the invariants throughout (surge bound,
// availability bound, one pod per instance id, PVCs owned and never deleted under a live pod).
// At the end the rollout completes, every pod has its bound claim, and the CloneSet settles with
// no writes. `npm test`: 5 kills per strategy on 20 pods; `npm run test:chaos`: 50 per strategy
// (100 in all) on 100 pods. CHAOS_SEED=<n> replays a run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSettledClaims, INSTANCE_ID_LABEL } from '../src/chaos/invariants.ts';
import { chaosLong, chaosSeed, killSchedule, seededRandom } from '../src/chaos/seeded.ts';
import { cloneSetsOf, observerClient, podsOf, pvcsOf } from './chaos/cluster-client.ts';
import { startChaosEnvironment, type ChaosEnvironment, type ManagerReplica } from './chaos/manager-process.ts';
import { applyObject, changedBetween, chaosCloneSet, PVC_TEMPLATE, rolloutComplete, setImage, waitForRollout, writeFingerprint, type ChaosCloneSet } from './chaos/rollout.ts';
import { InvariantSampler, takeSnapshot } from './chaos/sampler.ts';

const long = chaosLong();
const KILLS = long ? 50 : 5;
const REPLICAS = long ? 100 : 20;
const seed = chaosSeed();
const client = observerClient();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe(`manager crash during rollouts (seed ${seed}, ${KILLS} kills per strategy, ${REPLICAS} pods)`, () => {
  let env: ChaosEnvironment;
  let ns: { name: string };
  let manager: ManagerReplica;

  beforeAll(async () => {
    console.log(`[chaos-crash] seed ${seed} (replay with CHAOS_SEED=${seed})`);
    env = await startChaosEnvironment('chaos-crash');
    ({ manager } = env);
    ns = { name: env.namespace };
  });

  afterAll(async () => {
    await env?.teardown();
  });

  const scenarios: [ChaosCloneSet['strategy'], number, number][] = [
    ['ReCreate', long ? 10 : 3, long ? 10 : 2],
    ['InPlaceIfPossible', long ? 10 : 2, long ? 10 : 2],
  ];
  let sabotageTarget: { sampler: InvariantSampler; name: string } | undefined;

  it.each(scenarios)('%s (maxSurge %i, maxUnavailable %i): rollouts survive every SIGKILL', async (strategy, maxSurge, maxUnavailable) => {
    const name = `crash-${strategy.toLowerCase()}`;
    const spec: ChaosCloneSet = { name, replicas: REPLICAS, strategy, maxSurge, maxUnavailable, withPvcs: true };
    await applyObject(ns.name, chaosCloneSet(spec));
    await waitForRollout(client, ns.name, name, 300_000);
    const uid = (await cloneSetsOf(client).get(ns.name, name)).metadata.uid ?? '';
    const sampler = new InvariantSampler(client, ns.name, `app=${name}`, { cloneSetUid: uid, replicas: REPLICAS, maxSurge, maxUnavailable, checkAvailability: true, withPvcs: true });
    sampler.start();

    // Seeded per strategy so each replays alone; kill points are offsets from the manager being ready.
    const strategySeed = (seed ^ (strategy === 'ReCreate' ? 0x5eed : 0xface)) >>> 0;
    const schedule = killSchedule(strategySeed, KILLS, 200, 4_000);
    const nextImage = seededRandom(strategySeed + 1);
    let rounds = 0;
    let restartMs = 0;
    const newRound = async (): Promise<void> => {
      rounds++;
      await setImage(ns.name, name, `nginx:1.${rounds}.${Math.floor(nextImage() * 1000)}`);
    };
    const started = Date.now();
    await newRound();
    for (const delay of schedule) {
      // Every kill lands inside a rollout: a finished one is followed by the next image.
      if (await rolloutComplete(client, ns.name, name)) await newRound();
      await sleep(delay);
      await manager.kill();
      const t = Date.now();
      await manager.start();
      restartMs += Date.now() - t;
    }
    await waitForRollout(client, ns.name, name, long ? 900_000 : 300_000);
    const rolloutMs = Date.now() - started;

    // Settled: no writes to the CloneSet, its pods or PVCs over a quiet period.
    const before = await writeFingerprint(client, ns.name, name);
    const statusBefore = (await cloneSetsOf(client).get(ns.name, name)).status;
    await sleep(long ? 10_000 : 5_000);
    const changed = changedBetween(before, await writeFingerprint(client, ns.name, name));
    // What a late write changed, so a failure says which field did not settle with the rollout.
    if (changed.includes(`clone/${name}`)) console.log(`[chaos-crash] ${strategy}: CloneSet status before the quiet period ${JSON.stringify(statusBefore)}; after ${JSON.stringify((await cloneSetsOf(client).get(ns.name, name)).status)}`);
    await sampler.sampleOnce();
    await sampler.stop();

    const snap = await takeSnapshot(client, ns.name, `app=${name}`);
    const bound = new Set((await pvcsOf(client).list({ namespace: ns.name, labelSelector: `app=${name}` })).items.filter((c) => c.status?.phase === 'Bound').map((c) => c.metadata.name ?? ''));
    const claims = checkSettledClaims(snap, [PVC_TEMPLATE], name, bound);
    console.log(
      `[chaos-crash] ${strategy}: seed ${strategySeed}, ${KILLS} SIGKILLs over ${rounds} rollouts of ${REPLICAS} pods in ${Math.round(rolloutMs / 1000)} s; ` +
        `mean restart-to-ready ${Math.round(restartMs / KILLS)} ms; exits on its own (restarted) ${manager.unexpectedExits.length}; sampler: ${sampler.summary()}; writes after settling: ${changed.length}`,
    );
    expect(sampler.violations).toEqual([]);
    expect(sampler.samples).toBeGreaterThan(10);
    expect(claims).toEqual([]);
    expect(changed).toEqual([]);
    if (strategy === 'ReCreate') sabotageTarget = { sampler, name };
  }, long ? 1_800_000 : 600_000);

  it('the sampler catches too many pods unavailable and a PVC deleted under its live pod (the guarantees broken on purpose)', async () => {
    expect(sabotageTarget).toBeDefined();
    const { sampler, name } = sabotageTarget!;
    // Stopped first: a running manager replaces deleted pods (reusing their ids and claims) fast
    // enough that, on 100 pods, the sample after the last delete could miss the breakage.
    await manager.stop();
    const pods = (await podsOf(client).list({ namespace: ns.name, labelSelector: `app=${name}` })).items;
    // maxUnavailable + 1 pods deleted at once, as a controller ignoring the budget would.
    for (const p of pods.slice(0, sampler.limits.maxUnavailable + 1)) await podsOf(client).delete(ns.name, p.metadata.name ?? '');
    await sampler.sampleOnce();
    expect(sampler.violations.map((v) => v.invariant)).toContain('unavailable');
    const victimId = pods.at(-1)!.metadata.labels?.[INSTANCE_ID_LABEL];
    const victim = (await pvcsOf(client).list({ namespace: ns.name, labelSelector: `app=${name},${INSTANCE_ID_LABEL}=${victimId}` })).items[0]!;
    await sampler.sampleOnce();
    await pvcsOf(client).delete(ns.name, victim.metadata.name ?? '');
    await sampler.sampleOnce();
    expect(sampler.violations.map((v) => v.invariant)).toContain('pvc-deleted-under-pod');
  });
});
