// Scenario sharding (run only when --only names it; needs the sharder, built once from its source
// by the local cluster's build-sharder.sh): C CloneSets of P pods (6 x 300), half ReCreate with a
// volumeClaimTemplate, half in place, scaled out from 0 and rolled to a new image, by one manager
// at the shipped client limits, by three shards of a ControllerRing with the real sharder at the
// same limits, and by one manager unthrottled. On the ring, two more rollouts: one with the shard
// holding the most CloneSets SIGKILLed a few seconds in (not started again: its CloneSets must
// move), one with a fourth shard added a few seconds in (the sharder moves some CloneSets to it by
// drain). Throughout, a watch of the namespace keeps the handover invariants (./replica-ledger.ts).
import os from 'node:os';
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, inNamespace, now, sleep } from '../kube.ts';
import { ManagerFleet } from '../manager-fleet.ts';
import { fleetGrowth } from '../manager-metrics.ts';
import { machineCpuNow } from '../machine-cpu.ts';
import { NamespaceObserver } from '../observer.ts';
import { allReadyOn } from '../pod-goal.ts';
import { processCpuBetween, processCpuNow, type ProcessCpu } from '../process-cpu.ts';
import { fixed, type BenchSizes, type Cell, type Section } from '../result.ts';
import { RingWatch } from '../ring-watch.ts';
import { boundOf, phaseShares } from '../sharding-bound.ts';
import { SHIPPED_DEFAULTS } from '../controller-process.ts';
import { IMAGE_V1, IMAGE_V2, IMAGE_V3, POD_DELAYS, cloneSet } from '../workloads.ts';
import { createWorkload, setImage } from '../workload-run.ts';

type Log = (line: string) => void;

const IMAGE_V4 = 'registry.example/bench/app:v4';
const SHARDS = 3;
/** How far into a rollout the shard is killed, or the new one added. */
const CHAOS_AFTER_MS = 5_000;
const GONE_TIMEOUT_MS = 15 * 60_000;
const csName = (i: number): string => `cs-${i}`;
const recreates = (i: number): boolean => i % 2 === 0;

export interface ShardingSizes {
  cloneSets: number;
  podsPerCloneSet: number;
}

/** A CloneSet of the scenario: even ones ReCreate with a claim per pod, odd ones in place. */
function workload(i: number, replicas: number): KubeObject {
  const cs = cloneSet({ name: csName(i), replicas, image: IMAGE_V1, updateType: recreates(i) ? 'ReCreate' : 'InPlaceIfPossible' }) as unknown as KubeObject & {
    spec: { template: { spec: { containers: Record<string, unknown>[] } }; volumeClaimTemplates?: unknown[] };
  };
  if (recreates(i)) {
    cs.spec.template.spec.containers[0]!.volumeMounts = [{ name: 'data', mountPath: '/data' }];
    cs.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { storageClassName: 'standard', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } } } }];
  }
  return cs;
}

interface PhaseResult {
  phase: string;
  seconds: number;
  writes: number;
  writesPerPod: number;
  requests: number;
  rateLimiterWaitSeconds: number;
  managersCpuSeconds: number;
  processCpu: ProcessCpu;
  clientRateShare: number;
  cpuBusyShare: number;
  bound: string;
}

interface VariantResult {
  variant: string;
  managers: number;
  unthrottled: boolean;
  phases: PhaseResult[];
  duplicates: number;
  maxOverReplicas: number;
  lostPvcs: number;
  /** Live pods at the end without their claim. */
  podsWithoutClaims: number;
  failoverSeconds?: number;
  killed?: { shard: string; cloneSets: string[] };
  added?: { shard: string; cloneSetsMoved: number; labelChanges: number };
  failure?: string;
}

/** Every CloneSet's status agrees that all its pods are Ready and updated, its spec observed. */
async function waitSettled(ns: string, count: number, replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await benchClient().resource<KubeObject & { spec?: { replicas?: number }; status?: Record<string, number> }>(cloneSetResource).list({ namespace: ns })).items;
    const settled = list.length === count && list.every((cs) => {
      const s = cs.status ?? {};
      return s.observedGeneration === cs.metadata?.generation && s.replicas === replicas && s.readyReplicas === replicas && s.updatedReadyReplicas === replicas;
    });
    if (settled) return;
    if (Date.now() > deadline) throw new Error(`the CloneSets of ${ns} did not settle within ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

class Variant {
  readonly phases: PhaseResult[] = [];
  private readonly fleet: ManagerFleet;
  private readonly observer: NamespaceObserver;
  private readonly ns: string;
  private readonly sizes: ShardingSizes;
  private readonly qpsLimit: number;

  constructor(fleet: ManagerFleet, observer: NamespaceObserver, ns: string, sizes: ShardingSizes, qpsLimit: number) {
    this.fleet = fleet;
    this.observer = observer;
    this.ns = ns;
    this.sizes = sizes;
    this.qpsLimit = qpsLimit;
  }

  private get total(): number {
    return this.sizes.cloneSets * this.sizes.podsPerCloneSet;
  }

  /**
   * Times `write` until every pod is Ready (on `image`) and every status says so; `during` runs
   * alongside (a kill, a shard added). The managers' counters are read before and after: a
   * member killed in between leaves its part out (its counters die with it).
   */
  async phase(name: string, image: string, write: () => Promise<void>, during?: (t0: number) => Promise<void>): Promise<PhaseResult> {
    const before = await this.fleet.readings();
    const cpu0 = await processCpuNow();
    const machine0 = await machineCpuNow();
    const timeoutMs = 600_000 + this.total * 400;
    const t0 = now();
    const done = this.observer.waitFor(`${this.total} pods Ready on ${image}`, allReadyOn(this.total, image), timeoutMs);
    await write();
    await Promise.all([done, during?.(t0)]);
    await waitSettled(this.ns, this.sizes.cloneSets, this.sizes.podsPerCloneSet, 120_000);
    const windowMs = now() - t0;
    const after = await this.fleet.readings();
    const cpu1 = await processCpuNow();
    const machine1 = await machineCpuNow();
    // A member killed in between took its counts with it: the others' only.
    const { used, complete } = fleetGrowth(before, after);
    const load = {
      windowSeconds: windowMs / 1000,
      requests: used.requests,
      qpsLimit: this.qpsLimit * this.fleet.running().length,
      rateLimiterWaitSeconds: used.rateLimiterWaitSeconds,
      machineBusySeconds: machine0 && machine1 ? machine1.busy - machine0.busy : Number.NaN,
      cpus: os.availableParallelism(),
    };
    const shares = phaseShares(load);
    const result: PhaseResult = {
      phase: name,
      seconds: windowMs / 1000,
      writes: used.writes,
      writesPerPod: used.writes / this.total,
      requests: used.requests,
      rateLimiterWaitSeconds: used.rateLimiterWaitSeconds,
      managersCpuSeconds: used.cpuSeconds,
      processCpu: processCpuBetween(cpu0, cpu1, used.cpuSeconds),
      clientRateShare: shares.clientRate,
      cpuBusyShare: shares.cpuBusy,
      bound: complete ? boundOf(load) : `${boundOf(load)} (the killed shard's counts lost)`,
    };
    this.phases.push(result);
    return result;
  }

  async rollAll(image: string): Promise<void> {
    for (let i = 0; i < this.sizes.cloneSets; i++) await setImage('CloneSet', this.ns, csName(i), image);
  }
}

async function runVariant(label: string, shards: number, unthrottled: boolean, sizes: ShardingSizes, log: Log): Promise<VariantResult> {
  return inNamespace(
    'bench-sharding',
    async (ns) => {
      const fleet = await ManagerFleet.start({ namespace: ns, shards, unthrottled, log });
      const watch = await RingWatch.start(ns, fleet.shardLabel);
      const observer = await NamespaceObserver.start(ns, { podsOnly: true });
      const result: VariantResult = { variant: label, managers: Math.max(1, shards), unthrottled, phases: [], duplicates: 0, maxOverReplicas: 0, lostPvcs: 0, podsWithoutClaims: 0 };
      const v = new Variant(fleet, observer, ns, sizes, unthrottled ? 5000 : SHIPPED_DEFAULTS.qps);
      try {
        log(`sharding: ${label}: ${sizes.cloneSets} CloneSets of ${sizes.podsPerCloneSet} pods, scale-out`);
        await v.phase('scale-out', IMAGE_V1, async () => {
          for (let i = 0; i < sizes.cloneSets; i++) await createWorkload('CloneSet', ns, workload(i, sizes.podsPerCloneSet));
        });
        log(`sharding: ${label}: rollout to ${IMAGE_V2}`);
        await v.phase('rollout', IMAGE_V2, () => v.rollAll(IMAGE_V2));
        if (shards > 0) {
          log(`sharding: ${label}: rollout to ${IMAGE_V3}, the busiest shard SIGKILLed ${CHAOS_AFTER_MS / 1000} s in`);
          await v.phase('rollout, a shard killed', IMAGE_V3, () => v.rollAll(IMAGE_V3), async (t0) => {
            await sleep(Math.max(0, t0 + CHAOS_AFTER_MS - now()));
            const byShard = new Map<string, string[]>();
            for (const [cs, shard] of watch.shards()) byShard.set(shard, [...(byShard.get(shard) ?? []), cs]);
            const [shard, held] = [...byShard].filter(([s]) => s).sort((a, b) => b[1].length - a[1].length)[0]!;
            const tKill = now();
            await fleet.kill(shard);
            result.killed = { shard, cloneSets: held };
            // Its writes in flight have landed or died 2 s after the kill; the next pod asked for the new image is another shard's.
            await sleep(2_000);
            const set = new Set(held);
            const at = watch.podsFor(set, IMAGE_V3);
            if (at >= held.length * sizes.podsPerCloneSet) return;
            const t = await observer.waitFor(`a pod of ${held.join(', ')} on ${IMAGE_V3} after the kill`, { live: 'matching', replicas: at + 1, each: (p) => set.has(p.metadata?.labels?.app ?? '') && (p.spec?.containers ?? []).every((c) => c.image === IMAGE_V3) }, 300_000);
            result.failoverSeconds = (t - tKill) / 1000;
          });
          log(`sharding: ${label}: rollout to ${IMAGE_V4}, a shard added ${CHAOS_AFTER_MS / 1000} s in`);
          const shardsBefore = watch.shards();
          const changesBefore = watch.labelChanges;
          let added = '';
          await v.phase('rollout, a shard added', IMAGE_V4, () => v.rollAll(IMAGE_V4), async (t0) => {
            await sleep(Math.max(0, t0 + CHAOS_AFTER_MS - now()));
            added = await fleet.addShard();
            await fleet.waitAvailable(fleet.running().length);
          });
          const moved = [...watch.shards()].filter(([cs, s]) => shardsBefore.get(cs) !== s).length;
          result.added = { shard: added, cloneSetsMoved: moved, labelChanges: watch.labelChanges - changesBefore };
        }
        const templates = new Map(Array.from({ length: sizes.cloneSets }, (_, i) => i).filter(recreates).map((i) => [csName(i), 'data']));
        result.podsWithoutClaims = watch.podsWithoutClaims(templates);
      } catch (err) {
        result.failure = (err as Error).message.split('\n')[0];
        log(`sharding: ${label} failed: ${result.failure}`);
      } finally {
        Object.assign(result, await watch.counts());
        result.phases = v.phases;
        observer.stop();
        watch.stop();
        await fleet.stop();
      }
      return result;
    },
    { goneTimeoutMs: GONE_TIMEOUT_MS },
  );
}

const cpuCell = (p: ProcessCpu): string =>
  `${fixed(p['kube-apiserver'] ?? Number.NaN, 0)} / ${fixed(p.etcd ?? Number.NaN, 0)} / ${fixed(p['kwok-controller'] ?? Number.NaN, 0)} / ${fixed(p.controller ?? Number.NaN, 0)}`;

function rows(variants: readonly VariantResult[]): Cell[][] {
  return variants.flatMap((v) =>
    v.phases.map((p) => [
      v.variant,
      p.phase,
      fixed(p.seconds, 1),
      fixed(p.writesPerPod, 2),
      `${fixed(p.requests / p.seconds, 0)} (${fixed(p.clientRateShare * 100, 0)} %)`,
      fixed(p.rateLimiterWaitSeconds, 0),
      fixed(p.cpuBusyShare * 100, 0),
      cpuCell(p.processCpu),
      p.bound,
    ]),
  );
}

const phaseOf = (v: VariantResult | undefined, phase: string): PhaseResult | undefined => v?.phases.find((p) => p.phase === phase);

export async function shardingScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const s = sizes.sharding;
  const variants: VariantResult[] = [];
  variants.push(await runVariant('1 manager, shipped limits', 0, false, s, log));
  variants.push(await runVariant(`${SHARDS} shards, shipped limits`, SHARDS, false, s, log));
  variants.push(await runVariant('1 manager, unthrottled', 0, true, s, log));
  const [one, ring, free] = variants;
  const sum = (v: VariantResult | undefined): number => (phaseOf(v, 'scale-out')?.seconds ?? Number.NaN) + (phaseOf(v, 'rollout')?.seconds ?? Number.NaN);
  const speedup = sum(one) / sum(ring);
  const duplicates = variants.reduce((n, v) => n + v.duplicates, 0);
  const lostPvcs = variants.reduce((n, v) => n + v.lostPvcs + v.podsWithoutClaims, 0);
  const total = s.cloneSets * s.podsPerCloneSet;
  const notes = [
    `Speed-up at the shipped limits (1 manager's scale-out + rollout time over ${SHARDS} shards'): ×${fixed(speedup)}; unthrottled, one manager took ${fixed(sum(free), 1)} s against the ring's ${fixed(sum(ring), 1)} s.`,
    ring?.killed
      ? `Failover: ${ring.killed.shard} (holding ${ring.killed.cloneSets.join(', ')}) SIGKILLed ${CHAOS_AFTER_MS / 1000} s into the rollout and not started again; ${ring.failoverSeconds === undefined ? 'its CloneSets had already finished' : `the first pod of its CloneSets asked for the new image by another shard ${fixed(ring.failoverSeconds, 1)} s after the kill`} (the shipped Lease duration of 15 s, then the sharder's reassignment and the new owner's first pass).`
      : 'Failover: not measured.',
    ring?.added ? `Shard added: ${ring.added.shard} joined ${CHAOS_AFTER_MS / 1000} s into a rollout; ${ring.added.cloneSetsMoved} CloneSet(s) ended on another shard than before (${ring.added.labelChanges} changes of their shard label seen).` : 'Shard added: not measured.',
    `Handover invariants over every variant (a watch of each namespace): ${duplicates} instance id(s) with two live pods, at most ${Math.max(...variants.map((v) => v.maxOverReplicas))} live pods over a CloneSet's replicas (maxSurge 0), ${lostPvcs} claim(s) lost (deleted under a pod that stayed live, or missing for a live pod at the end; a recreate update deletes the old pod's claims with it, as OpenKruise does, and its replacement gets new ones).`,
  ];
  for (const v of variants) if (v.failure) notes.push(`${v.variant} did not finish: ${v.failure}.`);
  return {
    title: `Sharding: ${s.cloneSets} CloneSets of ${s.podsPerCloneSet} pods, 1 manager against ${SHARDS} shards`,
    method: [
      `Run only when \`--only\` names \`sharding\`; needs the sharder of kubernetes-controller-sharding (\`packages/local-cluster/scripts/build-sharder.sh\` builds it once from its source). Each variant runs in a fresh namespace: ${s.cloneSets} CloneSets created at once with ${s.podsPerCloneSet} replicas each (even ones ReCreate with a volumeClaimTemplate, odd ones InPlaceIfPossible; maxUnavailable 20 %, maxSurge 0), then all rolled to a new image at once.`,
      `The managers are controller-manager processes as users run them (their main entry, their admission webhooks in URL mode behind one loopback front, scoped to the namespace): one leader-elected manager at the shipped client limits (qps ${SHIPPED_DEFAULTS.qps} / burst ${SHIPPED_DEFAULTS.burst}, 3 workers per controller), ${SHARDS} shards of a ControllerRing limited to the namespace with the real sharder (v0.13.0, its webhook in URL mode) at the same limits each, and one manager unthrottled (qps 5000).`,
      `A phase is timed from the first write until the bench's watch saw all ${total} pods Ready on the image and every status said so. Writes are the managers' own (rest_client_requests_total, POST/PUT/PATCH/DELETE, every outcome) over the window, per pod of the namespace; "requests/s" is every request the managers sent per second and its share of their summed limit; "limiter wait" the seconds requests waited at the client's rate limiter, summed; "CPU busy" the machine's (/proc/stat) over the window's ${os.availableParallelism()} CPUs; then CPU seconds of the apiserver / etcd / kwok (the simulated kubelet) / the managers. "Bound": the client rate when requests ran at ≥ 80 % of the limit with waits at the limiter, else CPU when the machine was ≥ 90 % busy, else latency (round trips, the pods' ${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms of simulated start).`,
    ].join(' '),
    headers: ['variant', 'phase', 'time (s)', 'writes per pod', 'requests/s (share of limit)', 'limiter wait (s)', 'CPU busy (%)', 'CPU s: apiserver / etcd / kwok / managers', 'bound'],
    rows: rows(variants),
    notes,
    data: {
      sharding: {
        parameters: { cloneSets: s.cloneSets, podsPerCloneSet: s.podsPerCloneSet, clientLimits: SHIPPED_DEFAULTS, chaosAfterMs: CHAOS_AFTER_MS },
        shards: SHARDS,
        speedupAtShippedLimits: speedup,
        duplicates,
        lostPvcs,
        failoverSeconds: ring?.failoverSeconds ?? null,
        cloneSetsMovedByAddedShard: ring?.added?.cloneSetsMoved ?? null,
        variants: variants.map((v) => ({ ...v })),
      },
    },
  };
}
