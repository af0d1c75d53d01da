// Scenario 1: scale-out 0→N, CloneSet vs Deployment with the same pod template, each variant
// run `repeats` times in alternating order: N = sizes.scaleOut at both client limits, then the
// large N (where the controller's CPU time and event-loop delay are the issue's numbers), then
// one more CloneSet run of N under the CPU profiler (where its time goes).
import { SHIPPED_DEFAULTS, UNTHROTTLED } from '../controller-process.ts';
import { summarizeProfile, type CpuProfile } from '../cpu-profile.ts';
import { PLAN_CASES, timePlanning, type PlanTiming } from '../plan-timing.ts';
import { STALL_MS, TICK_MS, type LoopStalls } from '../loop-stalls.ts';
import { inNamespace } from '../kube.ts';
import { allCreated, allReadyOn, allScheduled } from '../pod-goal.ts';
import { cpuPer100PodsOf, loopMaxOf, loopP99Of, milestonesOf, observedWritesPerPodOf, runAlternating, timesOf, writesPerPodOf, type Variant } from '../repeated.ts';
import { fixed, seconds, type BenchSizes, type Cell, type Section } from '../result.ts';
import type { ResultData } from '../results-json.ts';
import { formatSeconds, sampleStats, speedRatio } from '../samples.ts';
import { podReadyLowerBoundMs } from '../stats.ts';
import { IMAGE_V1, POD_DELAYS, cloneSet, deployment } from '../workloads.ts';
import { SPEC_GATES, SPEC_WRITES_LABEL, withSpecPodFields } from '../spec-pod-writes.ts';
import { FRACTIONS, MILESTONES, timelineQuantiles } from '../timeline.ts';
import { PROCESS_CPU_HEADERS, processCpuCaption, processCpuMedians, processCpuRow } from '../process-cpu-table.ts';
import { createWorkload, timed, withSession, writesByKindCell, type Kind, type TimedRun } from '../workload-run.ts';

type Log = (line: string) => void;
type Limits = { qps: number; burst: number };

interface ScaleOutOptions {
  /** Handed the CloneSet controller's CPU profile of the run. */
  profile?: (p: CpuProfile) => void;
  /** A Deployment whose pods get the CloneSet's gates, state label and their writes (./spec-pod-writes.ts). */
  specPodWrites?: boolean;
  /** Handed the timing of the CloneSet's planning on its objects once all are Ready (../plan-timing.ts). */
  planTiming?: (t: PlanTiming) => void;
}

/** One scale-out of a CloneSet or a Deployment. */
export async function scaleOut(kind: Kind, n: number, limits: Limits, { profile, specPodWrites, planTiming }: ScaleOutOptions = {}): Promise<TimedRun> {
  return inNamespace(`bench-scale-${kind.toLowerCase()}`, (ns) =>
    withSession(
      kind,
      ns,
      async (s) => {
        const spec = { name: 'app', replicas: n, image: IMAGE_V1 };
        const manifest = kind === 'CloneSet' ? cloneSet(spec) : deployment(spec, specPodWrites ? withSpecPodFields : undefined);
        if (profile) await s.controller?.startProfile();
        const run = await timed(s, 'app', n, 1, () => createWorkload(kind, ns, manifest), allReadyOn(n), 60_000 + n * 500, {
          milestones: { created: allCreated(n), scheduled: allScheduled(n) },
        });
        if (profile && s.controller) profile((await s.controller.stopProfile()) as CpuProfile);
        if (planTiming) planTiming(await timePlanning(ns, 'app'));
        return run;
      },
      { ...limits, ...(specPodWrites ? { runs: 'spec-pod-writer' as const } : {}) },
    ),
  );
}

const PROFILE_TOP = 12;

/** One more CloneSet scale-out, not in the timed samples (the profiler slows it), under the V8 profiler. */
async function profiledScaleOut(n: number): Promise<ReturnType<typeof summarizeProfile>> {
  let taken: CpuProfile | undefined;
  await scaleOut('CloneSet', n, UNTHROTTLED, { profile: (p) => (taken = p) });
  if (!taken) throw new Error('the controller child answered without a CPU profile');
  return summarizeProfile(taken, PROFILE_TOP);
}
const UNTHROTTLED_LABEL = `qps ${UNTHROTTLED.qps} / burst ${UNTHROTTLED.burst}`;
const SHIPPED_LABEL = `qps ${SHIPPED_DEFAULTS.qps} / burst ${SHIPPED_DEFAULTS.burst} (shipped default)`;

/** `planTimings`, when given, collects a timing of the CloneSet's planning after each of its runs. */
function variants(n: number, withShipped: boolean, planTimings?: PlanTiming[]): Variant[] {
  const planTiming = planTimings ? (t: PlanTiming) => void planTimings.push(t) : undefined;
  const all: Variant[] = [
    { key: 'cloneSet', label: `CloneSet ${n}`, run: () => scaleOut('CloneSet', n, UNTHROTTLED, planTiming ? { planTiming } : {}) },
    { key: 'deployment', label: `Deployment ${n}`, run: () => scaleOut('Deployment', n, UNTHROTTLED) },
  ];
  if (withShipped) {
    all.push({ key: 'cloneSetShipped', label: `CloneSet ${n}, shipped client limits`, run: () => scaleOut('CloneSet', n, SHIPPED_DEFAULTS) });
    all.push({ key: 'deploymentSpecWrites', label: `Deployment ${n} with the CloneSet's pod writes`, run: () => scaleOut('Deployment', n, UNTHROTTLED, { specPodWrites: true }) });
  }
  return all;
}

const ms = (x: number): string => fixed(x, 1);

/** What the controller child's longest stalls were made of, run by run. */
function stallsNote(n: number, stalls: readonly LoopStalls[]): string {
  const longest = stalls.map((s) => `${ms(s.longestMs)} ms (${ms(s.longestCpuMs)} ms of CPU)`).join(', ');
  const gc = stalls.map((s) => `${s.gcPauses} pauses, ${ms(s.gcPauseTotalMs)} ms in all, the longest ${ms(s.gcPauseMaxMs)} ms`).join('; ');
  return [
    `What held the loop at N = ${n}, run by run (bench/src/loop-stalls.ts: a ${TICK_MS} ms timer, a stall when it came back more than ${STALL_MS} ms late): the longest stall ${longest};`,
    `the most process CPU in any one stall ${stalls.map((s) => `${ms(s.maxCpuMs)} ms`).join(', ')} (all threads: an upper bound on the longest synchronous stretch, garbage collection included).`,
    `Garbage collection (V8's pauses of the main thread): ${gc}.`,
  ].join(' ');
}

/** The synchronous planning of one pass on the large CloneSet's real objects (../plan-timing.ts). */
function planningNote(n: number, timings: readonly PlanTiming[]): string {
  const last = timings.at(-1);
  if (!last) return `Planning at N = ${n}: not measured.`;
  const cases = PLAN_CASES.map((name) => {
    const medians = timings.map((t) => t.cases[name].median);
    const largest = Math.max(...timings.map((t) => t.cases[name].max));
    const stage = sampleStats(timings.map((t) => t.cases[name].longestStage.median)).median;
    return `${name} ${fixed(sampleStats(medians).median, 2)} ms (largest of all passes ${fixed(largest, 2)} ms; longest stage ${fixed(stage, 2)} ms; ${last.cases[name].actions} actions planned)`;
  });
  return `Planning, the synchronous part of a reconcile (the planner's stages and describePlan, run between the cache reads and the first write; the reconcile gives the event loop a turn between two stages once 10 ms have passed, so it is held at most 10 ms plus the "longest stage"), timed in a fresh process (the bench's own heap and watchers left out) on the CloneSet's ${last.pods} pods and revisions, as the controller's cache holds them, after each of its ${timings.length} run(s) at N = ${n}, ${last.passes} passes per case, median of the runs' medians: ${cases.join(', ')}.`;
}

/**
 * One row of the scale-out table. The controller child's columns (API writes, CPU, event loop)
 * are the CloneSet controller's, or the stand-in's beside a Deployment; "n/a" without a child.
 */
function row(workload: string, client: string, n: number, runs: readonly TimedRun[], deploymentMedianMs: number, isBaseline = false): Cell[] {
  const times = timesOf(runs);
  const last = runs.at(-1);
  const child = runs.some((r) => r.controller);
  const observed = last ? `pods created ${last.observed.podCreates}, workload writes ${last.observed.workloadWrites - 1}, events ${JSON.stringify(last.observed.eventsByComponent)}` : '';
  return [
    workload,
    client,
    n,
    runs.length,
    seconds(milestonesOf(runs, 'created').median),
    seconds(milestonesOf(runs, 'scheduled').median),
    formatSeconds(times),
    isBaseline ? '1.00' : fixed(speedRatio(deploymentMedianMs, times.median)),
    child ? fixed(writesPerPodOf(runs, n).median) : 'n/a',
    fixed(observedWritesPerPodOf(runs, n).median),
    child ? fixed(cpuPer100PodsOf(runs, n).median, 3) : 'n/a',
    child ? `${ms(loopP99Of(runs).median)} / ${ms(loopMaxOf(runs).max)}` : 'n/a',
    last ? writesByKindCell(last, observed, workload !== 'CloneSet') : '',
  ];
}

/** results.json's object for one size: parameters, every sample, medians and the ratios. */
function sizeData(n: number, repeats: number, runs: Record<string, TimedRun[]>): Record<string, unknown> {
  const cs = timesOf(runs.cloneSet ?? []);
  const dep = timesOf(runs.deployment ?? []);
  const shipped = runs.cloneSetShipped ? timesOf(runs.cloneSetShipped) : undefined;
  const specWrites = runs.deploymentSpecWrites ? timesOf(runs.deploymentSpecWrites) : undefined;
  return {
    parameters: { replicas: n, repeats, clientLimits: { unthrottled: UNTHROTTLED, shipped: SHIPPED_DEFAULTS }, podDelaysMs: POD_DELAYS },
    samples: {
      cloneSetMs: cs.samples,
      deploymentMs: dep.samples,
      ...(shipped ? { cloneSetShippedMs: shipped.samples } : {}),
      ...(specWrites ? { deploymentWithSpecPodWritesMs: specWrites.samples } : {}),
      cloneSetCreatedMs: milestonesOf(runs.cloneSet ?? [], 'created').samples,
      deploymentCreatedMs: milestonesOf(runs.deployment ?? [], 'created').samples,
      cloneSetScheduledMs: milestonesOf(runs.cloneSet ?? [], 'scheduled').samples,
      deploymentScheduledMs: milestonesOf(runs.deployment ?? [], 'scheduled').samples,
      cloneSetApiWritesPerPod: writesPerPodOf(runs.cloneSet ?? [], n).samples,
    },
    cloneSetMs: { median: cs.median, min: cs.min, max: cs.max },
    deploymentMs: { median: dep.median, min: dep.min, max: dep.max },
    ratioVsDeployment: speedRatio(dep.median, cs.median),
    ...(shipped ? { shippedMs: { median: shipped.median, min: shipped.min, max: shipped.max }, shippedRatioVsDeployment: speedRatio(dep.median, shipped.median) } : {}),
    // The same pod writes on both sides: what the CloneSet controller adds beyond its specification's writes.
    ...(specWrites
      ? {
          deploymentWithSpecPodWritesMs: { median: specWrites.median, min: specWrites.min, max: specWrites.max },
          ratioVsDeploymentWithSpecPodWrites: speedRatio(specWrites.median, cs.median),
        }
      : {}),
  };
}

/** When 10%...100% of the pods reached each milestone in the last run of each workload. */
function timeline(n: number, runs: Record<string, TimedRun[]>): { rows: Cell[][]; data: Record<string, unknown> } {
  const rows: Cell[][] = [];
  const data: Record<string, unknown> = {};
  const workloads = [['cloneSet', 'CloneSet', true], ['deployment', 'Deployment', false], ['deploymentSpecWrites', SPEC_WRITES_LABEL, true]] as const;
  for (const [key, label, gated] of workloads) {
    const last = runs[key]?.at(-1);
    if (!last) continue;
    const q = timelineQuantiles(last.podMilestonesMs, n);
    data[key] = q;
    for (const m of MILESTONES) if (gated || m !== 'gate written') rows.push([label, m, ...q[m].map(seconds)]);
  }
  return { rows, data };
}

export async function scaleOutScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const n = sizes.scaleOut;
  const large = sizes.scaleOutLarge;
  const r = sizes.repeats;
  const main = await runAlternating(variants(n, true), r, log, `scale-out ${n}`);
  const planTimings: PlanTiming[] = [];
  const big = await runAlternating(variants(large, false, planTimings), r, log, `scale-out ${large}`);
  const depMain = timesOf(main.deployment!).median;
  const specWritesTimes = timesOf(main.deploymentSpecWrites!);
  const depBig = timesOf(big.deployment!).median;
  const rows: Cell[][] = [
    row('CloneSet', UNTHROTTLED_LABEL, n, main.cloneSet!, depMain),
    row('Deployment', `kcm: ${UNTHROTTLED_LABEL}`, n, main.deployment!, depMain, true),
    row(SPEC_WRITES_LABEL, `kcm and stand-in: ${UNTHROTTLED_LABEL}`, n, main.deploymentSpecWrites!, depMain),
    row('CloneSet', SHIPPED_LABEL, n, main.cloneSetShipped!, depMain),
    row('CloneSet', UNTHROTTLED_LABEL, large, big.cloneSet!, depBig),
    row('Deployment', `kcm: ${UNTHROTTLED_LABEL}`, large, big.deployment!, depBig, true),
  ];
  log(`scale-out ${n}: one more CloneSet run under the CPU profiler`);
  const profile = await profiledScaleOut(n);
  const steps = timeline(n, main);
  const cpuCreated = cpuPer100PodsOf(big.cloneSet!, large);
  const loopP99 = loopP99Of(big.cloneSet!);
  const loopMax = loopMaxOf(big.cloneSet!);
  const stalls = big.cloneSet!.flatMap((run) => (run.controller ? [run.controller.eventLoop.stalls] : []));
  const cpuRows = [
    processCpuRow(`CloneSet (${UNTHROTTLED_LABEL})`, n, main.cloneSet!),
    processCpuRow('Deployment', n, main.deployment!),
    processCpuRow(SPEC_WRITES_LABEL, n, main.deploymentSpecWrites!),
    processCpuRow(`CloneSet (${SHIPPED_LABEL})`, n, main.cloneSetShipped!),
    processCpuRow(`CloneSet (${UNTHROTTLED_LABEL})`, large, big.cloneSet!),
    processCpuRow('Deployment', large, big.deployment!),
  ];
  const data: ResultData = {
    scaleOut: {
      ...sizeData(n, r, main),
      timelineMs: { fractions: FRACTIONS, ...steps.data },
      processCpu: {
        cloneSet: processCpuMedians(main.cloneSet!),
        deployment: processCpuMedians(main.deployment!),
        deploymentWithSpecPodWrites: processCpuMedians(main.deploymentSpecWrites!),
        cloneSetShipped: processCpuMedians(main.cloneSetShipped!),
      },
    },
    scaleOut1000: { ...sizeData(large, r, big), processCpu: { cloneSet: processCpuMedians(big.cloneSet!), deployment: processCpuMedians(big.deployment!) } },
    cpuProfile: { replicas: n, busyMs: profile.totalMs, functions: profile.functions, packages: profile.packages },
    apiWrites: { scaleOutPerPod: writesPerPodOf(main.cloneSet!, n).median, scaleOutPerPodSamples: writesPerPodOf(main.cloneSet!, n).samples },
    cpu: { secondsPer100PodsCreated: cpuCreated.median, secondsPer100PodsCreatedSamples: cpuCreated.samples, createdMeasuredAtReplicas: large },
    eventLoop: {
      p99Ms: loopP99.median,
      maxMs: loopMax.max,
      p99MsSamples: loopP99.samples,
      maxMsSamples: loopMax.samples,
      stallsSamples: stalls,
      measuredAtReplicas: large,
    },
    planning: { replicas: large, samples: planTimings },
  };
  return {
    title: 'Scale-out 0→N',
    method: [
      `A CloneSet and a Deployment with the same pod template are created with \`replicas: N\` in fresh namespaces, one at a time; each variant runs ${r} time(s), alternating (CloneSet, Deployment, then Deployment, CloneSet...) so a drift of the shared machine hits both. Times are the median, with min–max when there are several runs.`,
      'Time: from the create request until a watcher in the bench process sees N live pods, all Ready; "all created" and "all scheduled" (medians) are when the same watcher first saw N pods, and N pods bound to nodes (what is left after "all scheduled" is the simulated kubelet\'s and the readiness writes\' share).',
      `Lower bound: one pod's simulated start + ready delay (${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms = ${seconds(podReadyLowerBoundMs(POD_DELAYS))} s), as if every pod were created and scheduled at once.`,
      'The CloneSet controller runs in its own Node process (like the kube-controller-manager it is compared with), with client limits matching that kube-controller-manager (`--kube-api-qps=5000 --kube-api-burst=10000`, set by kwokctl) unless the row says otherwise.',
      '"Deployment / CloneSet": the Deployment\'s median time divided by the CloneSet\'s (≥ 1.00: the CloneSet is at least as fast). "API writes": POST/PUT/PATCH/DELETE counted by the CloneSet controller\'s own `rest_client_requests_total`, until its status settled. "Observed writes/pod": what a namespace watch sees the controller under test write (pods created or deleted, workload objects and ControllerRevisions created or changed, its Events created or updated), the same way for both; the kube-controller-manager\'s own metrics also count other tenants\' work, so they are not used.',
      `"${SPEC_WRITES_LABEL}": the same Deployment, its pod template given the CloneSet's two readiness gates (${SPEC_GATES.join(', ')}) and the lifecycle state PreparingNormal, with a stand-in in its own Node process (the controller child, with the CloneSet controller's client limits and 32 writes in flight) making on each of its pods the two writes the CloneSet's specification adds to the create, as the CloneSet controller makes them: both gate conditions True through /status once the pod exists, and the state label Normal once it is scheduled (strategic merge patches). The kcm does the rest as for the plain Deployment. Its pods then cost the apiserver, etcd, the scheduler and the simulated kubelet what the CloneSet's pods cost, so the CloneSet's time against this row's says what the CloneSet controller adds beyond what its specification requires; for this row the controller columns are the stand-in's.`,
      '"CPU s / 100 pods": the controller child\'s `process.cpuUsage()` (user + system) over the run, per 100 pods. "Event loop": `perf_hooks.monitorEventLoopDelay` (1 ms resolution) in the controller child over the run, median of the runs\' p99 / largest max.',
    ].join(' '),
    headers: ['workload', 'client limits', 'N', 'runs', 'all created (s)', 'all scheduled (s)', 'time to all Ready (s)', 'Deployment / CloneSet', 'API writes / pod', 'observed writes / pod', 'CPU s / 100 pods', 'event loop p99 / max (ms)', 'writes by kind (last run)'],
    rows,
    notes: [
      `With the CloneSet's pod writes on its pods, the Deployment took ${formatSeconds(specWritesTimes)} s to all Ready against the CloneSet's ${formatSeconds(timesOf(main.cloneSet!))} s (N = ${n}): ${SPEC_WRITES_LABEL} / CloneSet = ${fixed(speedRatio(specWritesTimes.median, timesOf(main.cloneSet!).median))} (≥ 1.00: once the pods of both cost the same writes, the CloneSet controller is at least as fast as the kcm). The plain Deployment's lead is then what those writes cost on this machine.`,
      'Per pod the CloneSet controller makes, by its specification (OpenKruise behaviour): the create, a /status patch setting its readiness-gate condition and a label patch moving it from PreparingNormal to Normal once scheduled; its SuccessfulCreate Events are folded as client-go folds them (the first 9 distinct ones, then one combined Event with a series); plus a few CloneSet /status patches and one ControllerRevision per workload. The ReplicaSet controller makes the create only. Pod patches cannot be attributed to a writer from a namespace watch (the simulated kubelet writes pods too), so "observed writes" leaves them out for both controllers.',
      `The shipped client limits are measured at N = ${n} only: at N = ${large} a run is bound by the client's limiter (about 3 writes per pod at ${SHIPPED_DEFAULTS.qps} writes/s, ${fixed((3 * large) / SHIPPED_DEFAULTS.qps, 0)} s), more than the full run's time budget allows for ${r} run(s); the lease section has one run of N = ${sizes.leaseScaleOut} at these limits.`,
      'The event-loop delay is what the controller child\'s timers saw: on CPUs shared with the control plane and the bench, it includes time the process waited for a CPU, not only time a reconcile held the loop; the CPU profile below says which code ran.',
      stallsNote(large, stalls),
      planningNote(large, planTimings),
    ],
    extraTables: [
      {
        caption: `Where the time goes: one scale-out of ${n} pods per workload (its last run), seconds from the create request until the given share of the pods had reached each milestone, as the bench's watcher saw it ("gate written": the InPlaceUpdateReady readiness-gate condition True; the plain Deployment's pods have no gate).`,
        headers: ['workload', 'milestone', ...FRACTIONS.map((f) => `${f * 100}% of pods (s)`)],
        rows: steps.rows,
      },
      {
        caption: processCpuCaption('the create request'),
        headers: PROCESS_CPU_HEADERS,
        rows: cpuRows,
      },
      {
        caption: `Where the CloneSet controller's CPU goes: one more scale-out of ${n} pods (not among the timed samples: the profiler slows it) with the controller child under the V8 profiler (\`node:inspector\`) from the create request until the status settled (its start-up and cache sync left out); ${fixed(profile.totalMs / 1000)} s busy, idle left out. By package: ${profile.packages.slice(0, 8).map((p) => `${p.where} ${fixed(p.share * 100, 0)}%`).join(', ')}. The ${PROFILE_TOP} functions with the most self time:`,
        headers: ['function', 'package', 'self (ms)', 'share of busy time'],
        rows: profile.functions.map((f) => [f.name, f.where, fixed(f.ms, 0), `${fixed(f.share * 100, 1)}%`]),
      },
    ],
    data,
  };
}
