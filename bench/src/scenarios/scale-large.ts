// Scenario scale-large (run only when --only names it: about an hour and a half at full size):
// one CloneSet of N pods (10,000) scaled from 0, then a ReCreate rollout and an in-place rollout
// (maxUnavailable 10%, no surge), at the shipped client limits and unthrottled, the controller
// holding its Lease throughout as the controller-manager runs it; and a Deployment of the same
// size scaled out and rolled out beside it. Per phase: the time to all Ready against the client's
// rate bound and against the Deployment, API writes per pod, the event loop and GC pauses, the
// Lease's renewals; and the controller's RSS and heap at N pods.
// Scenario scale-large-shipped (opt-in too, about 45 minutes at full size): the shipped-limit
// CloneSet run alone, to re-measure the controller after a change without re-running the rest.
import { parseQuantity } from '@cloneset-suite/api-types';
import { LEADER_ELECTION_CLIENT_LIMITS, Resources, jsonPatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import { availableParallelism } from 'node:os';
import { SHIPPED_DEFAULTS, SHIPPED_LEASE_TIMINGS, UNTHROTTLED } from '../controller-process.ts';
import type { MemoryReading } from '../controller-protocol.ts';
import { benchClient, cloneSetResource, inNamespace } from '../kube.ts';
import { phaseFigures, runPhase, type HeldLease, type PhaseFigures, type PhaseRun, type PhaseSpec } from '../large-phase.ts';
import { withLeaderSession } from '../leader-session.ts';
import { timePlanning, PLAN_CASES, type PlanTiming } from '../plan-timing.ts';
import { allCreated, allReadyOn, allScheduled } from '../pod-goal.ts';
import { PROCESS_CPU_HEADERS, processCpuCaption, processCpuRow } from '../process-cpu-table.ts';
import { fixed, seconds, type BenchSizes, type Cell, type LargeSizes, type Section } from '../result.ts';
import { speedRatio } from '../samples.ts';
import { FRACTIONS, MILESTONES, timelineQuantiles } from '../timeline.ts';
import { IMAGE_V1, IMAGE_V2, IMAGE_V3, POD_DELAYS, cloneSet, deployment } from '../workloads.ts';
import { createWorkload, formatByKind, setImage, withSession } from '../workload-run.ts';

type Log = (line: string) => void;
type Limits = { qps: number; burst: number };
/** One run of a large scenario: the CloneSet at given client limits, or the Deployment (the kcm's). */
type Variant = { workload: 'CloneSet'; limits: Limits } | { workload: 'Deployment' };

/** kwok's node-initialize stage gives each simulated node room for 1,000 pods (`status.allocatable.pods`). */
const PODS_PER_NODE = 1_000;
/** Room for pods still terminating beside the N that must be Ready. */
const NODE_ROOM = 1.2;

/**
 * The simulated nodes the cluster needs for N pods: the local cluster's 6 (6,000 pods) up to 5,000
 * replicas, 12 for 10,000. Without them the scheduler leaves the pods past 6,000 Pending.
 */
export function nodesForLarge(replicas: number): number {
  return Math.max(6, Math.ceil((replicas * NODE_ROOM) / PODS_PER_NODE));
}

/** Fails at once, naming the figures, when the cluster's nodes cannot hold N pods (a cluster given by E2E_KUBECONFIG, say). */
async function checkNodeRoom(scenario: string, replicas: number): Promise<void> {
  const nodes = await benchClient().resource<KubeObject & { status?: { allocatable?: Record<string, string> } }>(Resources.nodes).listAll();
  const room = nodes.items.reduce((sum, n) => sum + (parseQuantity(n.status?.allocatable?.pods ?? '0') ?? 0), 0);
  if (room < replicas * NODE_ROOM) {
    throw new Error(`the cluster's ${nodes.items.length} nodes have room for ${room} pods; ${scenario} needs ${Math.ceil(replicas * NODE_ROOM)} for ${replicas} replicas (${nodesForLarge(replicas)} local nodes)`);
  }
}

/** 10,000 pods leave with their namespace in a few minutes; the next variant should not compete with that. */
const GONE_TIMEOUT_MS = 20 * 60_000;

interface VariantRun {
  workload: 'CloneSet' | 'Deployment';
  /** The CloneSet controller child's client limits (the Deployment's kcm is unthrottled). */
  limits?: Limits;
  phases: PhaseRun[];
  /** The child's memory on the empty namespace and once N pods were Ready (CloneSet only). */
  memoryEmpty?: MemoryReading;
  memoryAtN?: MemoryReading;
  planning?: PlanTiming;
}

/** Generous: at the shipped limits a ReCreate rollout of 10,000 pods is about 50,000 writes at 50/s. */
const phaseTimeoutMs = (n: number): number => 300_000 + n * 400;

function phaseSpec(name: string, n: number, write: () => Promise<unknown>, goal: PhaseSpec['goal'], milestones = false): PhaseSpec {
  return {
    name,
    replicas: n,
    write,
    goal,
    timeoutMs: phaseTimeoutMs(n),
    // The status trails the last pods by the writes still queued at the client's limit.
    options: { settleTimeoutMs: 120_000 + n * 20, ...(milestones ? { milestones: { created: allCreated(n), scheduled: allScheduled(n) } } : {}) },
  };
}

/** Runs the phases in turn, `after` each one that finished; once one failed, the rest are recorded as not run. */
async function runPhases(
  run: (spec: PhaseSpec) => Promise<PhaseRun>,
  specs: readonly PhaseSpec[],
  log: Log,
  what: string,
  after: (phase: PhaseRun) => Promise<void> = async () => {},
): Promise<PhaseRun[]> {
  const out: PhaseRun[] = [];
  for (const spec of specs) {
    if (out.some((p) => p.failure)) {
      out.push({ name: spec.name, failure: 'not run: an earlier phase failed', leasesLost: 0 });
      continue;
    }
    log(`${what}: ${spec.name}`);
    const phase = await run(spec);
    if (phase.failure) log(`${what}: ${spec.name} failed: ${phase.failure}`);
    else await after(phase);
    out.push(phase);
  }
  return out;
}

function patchCloneSet(ns: string, ops: Parameters<typeof jsonPatch>[0]): Promise<KubeObject> {
  return benchClient().resource<KubeObject>(cloneSetResource).patch(ns, 'app', jsonPatch(ops));
}

async function cloneSetRun(sizes: LargeSizes, limits: Limits, log: Log): Promise<VariantRun> {
  const n = sizes.cloneSetReplicas;
  const identity = `bench-large-${process.pid}-${Date.now()}`;
  const what = `CloneSet of ${n}, qps ${limits.qps}`;
  return inNamespace(
    'bench-large-cloneset',
    (ns) =>
      withLeaderSession(ns, limits, identity, async (s) => {
        const lease: HeldLease = { observer: s.lease, identity, renewDeadlineMs: SHIPPED_LEASE_TIMINGS.renewDeadlineMs };
        const memoryEmpty = await s.controller.memory();
        const result: VariantRun = { workload: 'CloneSet', limits, phases: [], memoryEmpty };
        const manifest = cloneSet({ name: 'app', replicas: n, image: IMAGE_V1, maxUnavailable: sizes.maxUnavailable, updateType: 'ReCreate' });
        const inPlace = (): Promise<KubeObject> =>
          patchCloneSet(ns, [
            { op: 'replace', path: '/spec/updateStrategy/type', value: 'InPlaceIfPossible' },
            { op: 'replace', path: '/spec/template/spec/containers/0/image', value: IMAGE_V3 },
          ]);
        const specs = [
          phaseSpec('scale-out', n, () => createWorkload('CloneSet', ns, manifest), allReadyOn(n), true),
          phaseSpec('ReCreate rollout', n, () => setImage('CloneSet', ns, 'app', IMAGE_V2), allReadyOn(n, IMAGE_V2)),
          phaseSpec('in-place rollout', n, inPlace, allReadyOn(n, IMAGE_V3)),
        ];
        result.phases = await runPhases((spec) => runPhase(s, spec, lease), specs, log, what, async (phase) => {
          if (phase.name !== 'scale-out') return;
          result.memoryAtN = await s.controller.memory();
          log(`${what}: timing the planning of ${n} pods in a fresh process`);
          const planning = await timePlanning(ns, 'app').catch(() => undefined);
          if (planning) result.planning = planning;
        });
        return result;
      }),
    { goneTimeoutMs: GONE_TIMEOUT_MS },
  );
}

async function deploymentRun(sizes: LargeSizes, log: Log): Promise<VariantRun> {
  const n = sizes.cloneSetReplicas;
  return inNamespace(
    'bench-large-deployment',
    (ns) =>
      withSession('Deployment', ns, async (s) => {
        const manifest = deployment({ name: 'app', replicas: n, image: IMAGE_V1, maxUnavailable: sizes.maxUnavailable });
        const phases = await runPhases(
          (spec) => runPhase(s, spec),
          [phaseSpec('scale-out', n, () => createWorkload('Deployment', ns, manifest), allReadyOn(n), true), phaseSpec('rollout', n, () => setImage('Deployment', ns, 'app', IMAGE_V2), allReadyOn(n, IMAGE_V2))],
          log,
          `Deployment of ${n}`,
        );
        return { workload: 'Deployment' as const, phases };
      }),
    { goneTimeoutMs: GONE_TIMEOUT_MS },
  );
}

const qpsBurst = (l: Limits): string => `qps ${l.qps} / burst ${l.burst}`;
const limitsLabel = (v: VariantRun): string => (v.limits ? `${qpsBurst(v.limits)}${v.limits.qps === SHIPPED_DEFAULTS.qps ? ', shipped' : ''}` : 'kcm: qps 5000 / burst 10000');
const variantLabel = (v: VariantRun): string => `${v.workload} (${limitsLabel(v)})`;
const ms1 = (x: number): string => fixed(x, 1);
const mib = (b: number | undefined): string => (b === undefined ? 'n/a' : fixed(b / 2 ** 20, 0));

/** The Deployment phase a CloneSet phase is compared with. */
const DEPLOYMENT_PHASE: Record<string, string> = { 'scale-out': 'scale-out', 'ReCreate rollout': 'rollout', 'in-place rollout': 'rollout' };

function phaseRow(v: VariantRun, p: PhaseRun, n: number, deployment: VariantRun | undefined): Cell[] {
  const label = [v.workload, limitsLabel(v), p.name];
  if (!p.run) return [...label, `did not finish: ${p.failure ?? 'unknown'}`, ...Array<Cell>(11).fill(''), p.renewals ? p.leasesLost : 'n/a', ''];
  const f = phaseFigures(p.run, n, v.limits);
  const dep = deployment?.phases.find((d) => d.name === DEPLOYMENT_PHASE[p.name])?.run;
  const child = p.run.controller;
  return [
    ...label,
    seconds(f.ms),
    Number.isFinite(f.clientRateBoundMs) ? seconds(f.clientRateBoundMs) : 'n/a',
    Number.isFinite(f.clientRateBoundMs) && f.clientRateBoundMs > 0 ? fixed(f.ms / f.clientRateBoundMs) : 'n/a',
    v.workload === 'Deployment' ? '1.00' : fixed(speedRatio(dep?.ms ?? Number.NaN, f.ms)),
    child ? fixed(f.apiWritesPerPod) : 'n/a',
    child ? fixed(f.cpuSecondsPer100Pods, 3) : 'n/a',
    child ? `${ms1(f.eventLoopP99Ms)} / ${ms1(f.eventLoopMaxMs)}` : 'n/a',
    child ? `${ms1(f.gcPauseMaxMs)} (${f.gcPauses} pauses)` : 'n/a',
    p.renewals ? p.renewals.renewals : 'n/a',
    p.renewals ? `${seconds(p.renewals.largestRenewGapMs)} / ${seconds(p.renewals.largestSeenGapMs)}` : 'n/a',
    p.renewals ? p.leasesLost : 'n/a',
    `${f.boundBy}; CPUs busy: ${fixed(f.cpuBusy)} measured, ${fixed(f.machineBusy)} the whole machine, of ${availableParallelism()}`,
    child ? formatByKind(child.byKind) : '',
  ];
}

function phaseData(v: VariantRun, p: PhaseRun, n: number, deployment: VariantRun | undefined): Record<string, unknown> {
  const base = { failure: p.failure ?? null, leasesLost: p.renewals ? p.leasesLost : null, renewals: p.renewals ?? null };
  if (!p.run) return base;
  const f: PhaseFigures = phaseFigures(p.run, n, v.limits);
  const dep = deployment?.phases.find((d) => d.name === DEPLOYMENT_PHASE[p.name])?.run;
  return {
    ...base,
    ...f,
    ratioVsDeployment: v.workload === 'Deployment' ? 1 : speedRatio(dep?.ms ?? Number.NaN, f.ms),
    writesByKind: p.run.controller?.byKind ?? null,
    processCpuSeconds: p.run.processCpu,
    windowMs: p.run.windowMs,
    stolenSeconds: p.run.stolenSeconds ?? null,
    milestonesMs: p.run.milestonesMs,
  };
}

function memoryNote(v: VariantRun, n: number): string | undefined {
  const empty = v.memoryEmpty;
  const at = v.memoryAtN;
  if (!empty || !at) return undefined;
  const perThousand = (a: number, b: number): string => fixed(((a - b) / 2 ** 20 / n) * 1000, 1);
  return `${variantLabel(v)} at ${n} Ready pods: RSS ${mib(at.rssBytes)} MiB and heap ${mib(at.heapUsedBytes)} MiB as it ran; after a full GC RSS ${mib(at.settledRssBytes)} MiB and heap ${mib(at.settledHeapUsedBytes)} MiB (on the empty namespace ${mib(empty.settledRssBytes)} and ${mib(empty.settledHeapUsedBytes)} MiB: ${perThousand(at.settledRssBytes, empty.settledRssBytes)} MiB of RSS and ${perThousand(at.settledHeapUsedBytes, empty.settledHeapUsedBytes)} MiB of heap per 1,000 pods); the process's peak RSS so far ${mib(at.maxRssBytes)} MiB.`;
}

function planningNote(v: VariantRun): string | undefined {
  const t = v.planning;
  if (!t) return undefined;
  const cases = PLAN_CASES.map((c) => {
    const k = t.cases[c];
    return `${c} ${fixed(k.median, 1)} ms (largest ${fixed(k.max, 1)} ms; longest stage ${fixed(k.longestStage.median, 1)} ms, largest ${fixed(k.longestStage.max, 1)} ms; ${k.actions} actions)`;
  });
  return `Planning on the ${t.pods} pods after ${variantLabel(v)}'s scale-out (the planner's stages and describePlan, in a fresh process, ${t.passes} passes per case, median; "longest stage": the longest stretch between two of the planner's yields, where the reconcile gives the event loop a turn): ${cases.join(', ')}.`;
}

function stallsNote(v: VariantRun): string | undefined {
  const parts = v.phases.flatMap((p) => {
    const s = p.run?.controller?.eventLoop.stalls;
    return s ? [`${p.name}: ${s.stalls} stalls over 20 ms, the longest ${ms1(s.longestMs)} ms (${ms1(s.longestCpuMs)} ms of process CPU in it; the main thread busy ${ms1(s.maxMainThreadCpuMs)} ms at most in one stall), GC ${s.gcPauses} pauses, ${ms1(s.gcPauseTotalMs)} ms in all`] : [];
  });
  return parts.length ? `What held ${variantLabel(v)}'s event loop: ${parts.join('; ')}.` : undefined;
}

/** What a large scenario runs, in turn, and how its section names it. */
interface LargeScenario {
  /** Its --only name (the scenario table's), for the method text, log lines and errors. */
  name: string;
  /** Its results.json group: its own, so a merged run of one keeps the other's. */
  dataKey: string;
  variants: readonly Variant[];
  title: (n: number) => string;
  /** The method's words on the variants, after the phases. */
  variantsText: string;
}

const SHIPPED_CLONESET: Variant = { workload: 'CloneSet', limits: SHIPPED_DEFAULTS };

const SCALE_LARGE: LargeScenario = {
  name: 'scale-large',
  dataKey: 'scaleLarge',
  // The shipped limits first: whether the Lease holds there is the question this scenario answers.
  variants: [SHIPPED_CLONESET, { workload: 'CloneSet', limits: UNTHROTTLED }, { workload: 'Deployment' }],
  title: (n) => `One CloneSet of ${n} pods: scale-out, ReCreate and in-place rollouts, the Lease held throughout`,
  variantsText: `one run at the shipped client limits (${qpsBurst(SHIPPED_DEFAULTS)}), one unthrottled (${qpsBurst(UNTHROTTLED)}, as the kcm here). A Deployment of the same size (RollingUpdate, the same budget, no surge) is scaled out and rolled out once.`,
};

const SCALE_LARGE_SHIPPED: LargeScenario = {
  name: 'scale-large-shipped',
  dataKey: 'scaleLargeShipped',
  variants: [SHIPPED_CLONESET],
  title: (n) => `One CloneSet of ${n} pods at the shipped client limits alone: scale-out, ReCreate and in-place rollouts, the Lease held throughout`,
  variantsText: `the shipped-limit run alone (${qpsBurst(SHIPPED_DEFAULTS)}), a shorter re-run of scale-large's first variant: no unthrottled run and no Deployment, so "Deployment / CloneSet" is n/a.`,
};

export const scaleLargeScenario = (sizes: BenchSizes, log: Log): Promise<Section> => largeScenario(SCALE_LARGE, sizes, log);
export const scaleLargeShippedScenario = (sizes: BenchSizes, log: Log): Promise<Section> => largeScenario(SCALE_LARGE_SHIPPED, sizes, log);

async function largeScenario(scenario: LargeScenario, sizes: BenchSizes, log: Log): Promise<Section> {
  const large = sizes.large;
  const n = large.cloneSetReplicas;
  const say: Log = (line) => log(`${scenario.name}: ${line}`);
  await checkNodeRoom(scenario.name, n);
  const runs: VariantRun[] = [];
  for (const v of scenario.variants) runs.push(v.workload === 'CloneSet' ? await cloneSetRun(large, v.limits, say) : await deploymentRun(large, say));
  const dep = runs.find((v) => v.workload === 'Deployment');
  const rows = runs.flatMap((v) => v.phases.map((p) => phaseRow(v, p, n, dep)));
  const cloneSets = runs.filter((v) => v.workload === 'CloneSet');
  const leasesLostTotal = cloneSets.flatMap((v) => v.phases).reduce((sum, p) => sum + p.leasesLost, 0);
  const timelineRows = runs.flatMap((v) => {
    const run = v.phases.find((p) => p.name === 'scale-out')?.run;
    if (!run) return [];
    const q = timelineQuantiles(run.podMilestonesMs, n);
    // The Deployment's pods have no gate.
    return MILESTONES.filter((m) => v.workload === 'CloneSet' || m !== 'gate written').map((m) => [variantLabel(v), m, ...q[m].map(seconds)]);
  });
  const cpuRows = runs.flatMap((v) => v.phases.flatMap((p) => (p.run ? [processCpuRow(`${variantLabel(v)}, ${p.name}`, n, [p.run])] : [])));
  return {
    title: scenario.title(n),
    method: [
      `Run only when \`--only\` names \`${scenario.name}\`. A CloneSet of ${n} replicas (ReCreate, maxUnavailable ${large.maxUnavailable}, no surge) is created in a fresh namespace and, once all its pods are Ready and its status settled, its image is changed (a ReCreate rollout), then its update type set to InPlaceIfPossible with another image (an in-place rollout); ${scenario.variantsText}`,
      `The controller child runs with leader election on, as the controller-manager ships it: lease ${seconds(SHIPPED_LEASE_TIMINGS.leaseDurationMs)} s, renew deadline ${seconds(SHIPPED_LEASE_TIMINGS.renewDeadlineMs)} s, retry period ${seconds(SHIPPED_LEASE_TIMINGS.retryPeriodMs)} s, the elector on its own client (${qpsBurst(LEADER_ELECTION_CLIENT_LIMITS)}) and connections; a watch on the Lease in the bench process records every renewal.`,
      'Time: from the create or patch request until the bench\'s watcher sees exactly N live pods, all Ready (on the new image for a rollout). "Client-rate bound": the time the child\'s client limiter alone needs for the reconciles\' writes of the phase (the Lease\'s aside), (writes − burst) / qps; a run close to it was paced by the limiter. "Deployment / CloneSet": the Deployment\'s time for the same kind of change (its rollout for both rollouts) divided by the CloneSet\'s.',
      '"API writes / pod", "CPU s / 100 pods", "event loop", "GC": the controller child\'s own counters over the phase, as in the scale-out section; "longest GC pause": V8\'s longest pause of the main thread. "Renewals": distinct renewTimes the Lease watcher saw over the phase; "renewal gap": the largest step between successive renewTimes (the holder\'s clock) / the largest wait the watcher saw, both below the renew deadline for the lease to hold; "leases lost": another holder took it, the child\'s Manager stopped for a lost lease, or a renewal came after the renew deadline.',
      `"Bounded by": the client rate when the run took less than ${fixed(1 / 0.8, 2)}× its client-rate bound, else the CPU when the measured processes kept 85% of the machine's CPUs busy (the two largest users named), else the simulated pods' delays and the watch round trips.`,
    ].join(' '),
    headers: ['workload', 'client limits', 'phase', 'time to all Ready (s)', 'client-rate bound (s)', '× bound', 'Deployment / CloneSet', 'API writes / pod', 'CPU s / 100 pods', 'event loop p99 / max (ms)', 'longest GC pause (ms)', 'renewals', 'renewal gap: renewTime / seen (s)', 'leases lost', 'bounded by', 'writes by kind'],
    rows,
    notes: [
      `Leases lost over every phase of ${cloneSets.length === 1 ? 'the CloneSet run' : `all ${cloneSets.length} CloneSet runs`}: ${leasesLostTotal} (0 wanted).`,
      ...cloneSets.flatMap((v) => [memoryNote(v, n), planningNote(v), stallsNote(v)].filter((x): x is string => x !== undefined)),
      'One run per variant: a run of this size takes most of an hour at the shipped limits, so differences of a few percent between rows or between runs are noise of the shared machine.',
    ],
    extraTables: [
      {
        caption: `Where a scale-out's time goes: seconds from the create request until the given share of the ${n} pods had reached each milestone, as the bench's watcher saw it ("gate written": the InPlaceUpdateReady condition True${dep ? "; the Deployment's pods have no gate" : ''}).`,
        headers: ['workload', 'milestone', ...FRACTIONS.map((f) => `${f * 100}% of pods (s)`)],
        rows: timelineRows,
      },
      { caption: processCpuCaption('the create or patch request'), headers: PROCESS_CPU_HEADERS, rows: cpuRows },
    ],
    data: {
      [scenario.dataKey]: {
        parameters: {
          replicas: n,
          maxUnavailable: large.maxUnavailable,
          maxSurge: 0,
          podDelaysMs: POD_DELAYS,
          lease: SHIPPED_LEASE_TIMINGS,
          electorClientLimits: LEADER_ELECTION_CLIENT_LIMITS,
        },
        runs: runs.map((v) => ({
          workload: v.workload,
          clientLimits: v.limits ?? null,
          leasesLost: v.workload === 'CloneSet' ? v.phases.reduce((sum, p) => sum + p.leasesLost, 0) : null,
          phases: Object.fromEntries(v.phases.map((p) => [p.name, phaseData(v, p, n, dep)])),
          memoryEmpty: v.memoryEmpty ?? null,
          memoryAtReplicas: v.memoryAtN ?? null,
          planning: v.planning ?? null,
        })),
        leasesLost: leasesLostTotal,
      },
    },
  };
}
