// Scenario 2: rollout of N pods to a new image with maxUnavailable 20% and no surge: CloneSet
// ReCreate and InPlaceIfPossible vs a Deployment (RollingUpdate maxSurge 0), each run `repeats`
// times in alternating order.
import { inNamespace } from '../kube.ts';
import { allReadyOn } from '../pod-goal.ts';
import { cpuPer100PodsOf, observedWritesPerPodOf, runAlternating, timesOf, writesPerPodOf } from '../repeated.ts';
import { PROCESS_CPU_HEADERS, processCpuCaption, processCpuMedians, processCpuRow } from '../process-cpu-table.ts';
import { fixed, seconds, type BenchSizes, type Cell, type Section } from '../result.ts';
import { formatSeconds, speedRatio } from '../samples.ts';
import { inPlaceRolloutLowerBoundMs, recreateRolloutLowerBoundMs, resolveMaxUnavailable } from '../stats.ts';
import { IMAGE_V1, IMAGE_V2, POD_DELAYS, cloneSet, deployment } from '../workloads.ts';
import { SPEC_WRITES_LABEL, withSpecPodFields } from '../spec-pod-writes.ts';
import { ROLLOUT_MILESTONES, batchGaps, rolloutReached } from '../rollout-timeline.ts';
import { FRACTIONS, timelineQuantiles } from '../timeline.ts';
import { createWorkload, setImage, timed, waitStatusSettled, withSession, writesByKindCell, type Kind, type TimedRun } from '../workload-run.ts';

const MAX_UNAVAILABLE = '20%';

type Log = (line: string) => void;

/** With `specPodWrites`, a Deployment whose pods get the CloneSet's gates, state label and their writes (../spec-pod-writes.ts). */
async function rollout(kind: Kind, n: number, updateType: 'ReCreate' | 'InPlaceIfPossible', specPodWrites = false): Promise<TimedRun> {
  return inNamespace(`bench-roll-${kind.toLowerCase()}`, (ns) =>
    withSession(kind, ns, async (s) => {
      const spec = { name: 'app', replicas: n, image: IMAGE_V1, maxUnavailable: MAX_UNAVAILABLE, updateType };
      await createWorkload(kind, ns, kind === 'CloneSet' ? cloneSet(spec) : deployment(spec, specPodWrites ? withSpecPodFields : undefined));
      await s.observer.waitFor(`${n} Ready pods`, allReadyOn(n), 60_000 + n * 500);
      await waitStatusSettled(kind, ns, 'app', n, 30_000);
      s.observer.trackMilestones((pod, isNew) => rolloutReached(pod, IMAGE_V2, isNew));
      return timed(s, 'app', n, 1, () => setImage(kind, ns, 'app', IMAGE_V2), allReadyOn(n, IMAGE_V2), 120_000 + n * 1_000);
    }, specPodWrites ? { runs: 'spec-pod-writer' } : {}),
  );
}

const VARIANTS = [
  { key: 'recreate', label: 'CloneSet ReCreate' },
  { key: 'inPlace', label: 'CloneSet InPlaceIfPossible' },
  { key: 'deployment', label: 'Deployment' },
  { key: 'deploymentSpecWrites', label: SPEC_WRITES_LABEL },
] as const;

/** Per workload (its last run): when 10%...100% of the pods reached each rollout milestone, and the gaps between batches. */
function timeline(n: number, runs: Record<string, TimedRun[]>): { milestones: Cell[][]; gaps: Cell[][]; data: Record<string, unknown> } {
  const milestones: Cell[][] = [];
  const gaps: Cell[][] = [];
  const data: Record<string, unknown> = { fractions: FRACTIONS };
  for (const { key, label } of VARIANTS) {
    const last = runs[key]?.at(-1);
    if (!last) continue;
    const q = timelineQuantiles(last.podMilestonesMs, n, ROLLOUT_MILESTONES);
    const g = batchGaps(last.podMilestonesMs);
    data[key] = { milestonesMs: q, firstWriteMs: g.firstWriteMs, batchGapsMs: g.gapsMs };
    for (const m of ROLLOUT_MILESTONES) if (q[m].some(Number.isFinite)) milestones.push([label, m, ...q[m].map(seconds)]);
    const sorted = [...g.gapsMs].sort((a, b) => a - b);
    const sum = sorted.reduce((a, b) => a + b, 0);
    gaps.push([label, seconds(g.firstWriteMs), sorted.length, sorted.length ? seconds(sorted[Math.floor(sorted.length / 2)]!) : 'n/a', sorted.length ? seconds(sorted.at(-1)!) : 'n/a', seconds(sum), seconds(last.ms)]);
  }
  return { milestones, gaps, data };
}

const ROW_VARIANTS = [
  { key: 'recreate', label: 'CloneSet ReCreate', inPlace: false },
  { key: 'deployment', label: 'Deployment RollingUpdate (maxSurge 0)', inPlace: false },
  { key: 'deploymentSpecWrites', label: SPEC_WRITES_LABEL, inPlace: false },
  { key: 'inPlace', label: 'CloneSet InPlaceIfPossible', inPlace: true },
] as const;

/** Every variant of one size, alternating. */
function runSize(n: number, r: number, log: Log): Promise<Record<string, TimedRun[]>> {
  return runAlternating(
    [
      { key: 'recreate', label: 'CloneSet ReCreate', run: () => rollout('CloneSet', n, 'ReCreate') },
      { key: 'deployment', label: 'Deployment', run: () => rollout('Deployment', n, 'ReCreate') },
      { key: 'inPlace', label: 'CloneSet InPlaceIfPossible', run: () => rollout('CloneSet', n, 'InPlaceIfPossible') },
      { key: 'deploymentSpecWrites', label: SPEC_WRITES_LABEL, run: () => rollout('Deployment', n, 'ReCreate', true) },
    ],
    r,
    log,
    `rollout ${n}`,
  );
}

/** The table's rows for one size. */
function sizeRows(n: number, runs: Record<string, TimedRun[]>): Cell[][] {
  const batch = resolveMaxUnavailable(MAX_UNAVAILABLE, n);
  const recreateBound = recreateRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS);
  const inPlaceBound = inPlaceRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS.restartMs, POD_DELAYS.readyMs);
  const depMs = timesOf(runs.deployment!).median;
  return ROW_VARIANTS.map(({ key, label, inPlace }) => {
    const bound = inPlace ? inPlaceBound : recreateBound;
    const rs = runs[key]!;
    const times = timesOf(rs);
    const last = rs.at(-1)!;
    const isBaseline = key === 'deployment';
    // The CloneSet controller's, or the stand-in's beside a Deployment.
    const child = rs.some((x) => x.controller);
    const observed = `pods created ${last.observed.podCreates}, deleted ${last.observed.podDeletes}, workload writes ${last.observed.workloadWrites - 1}, events ${JSON.stringify(last.observed.eventsByComponent)}`;
    return [
      label,
      n,
      rs.length,
      formatSeconds(times),
      seconds(bound),
      fixed(times.median / bound),
      seconds(times.median / Math.ceil(n / batch)),
      isBaseline ? '1.00' : fixed(speedRatio(depMs, times.median)),
      child ? fixed(writesPerPodOf(rs, n).median) : 'n/a',
      fixed(observedWritesPerPodOf(rs, n).median),
      child ? fixed(cpuPer100PodsOf(rs, n).median, 3) : 'n/a',
      writesByKindCell(last, observed, key === 'deploymentSpecWrites'),
    ];
  });
}

/** results.json's object for the large size: parameters, samples, medians and both ratios. */
function largeSizeData(n: number, r: number, runs: Record<string, TimedRun[]>): Record<string, unknown> {
  const dep = timesOf(runs.deployment!);
  const stats = (key: string) => {
    const t = timesOf(runs[key]!);
    return { median: t.median, min: t.min, max: t.max, samples: t.samples };
  };
  return {
    parameters: { replicas: n, repeats: r, maxUnavailable: MAX_UNAVAILABLE, maxSurge: 0, podDelaysMs: POD_DELAYS },
    recreateMs: stats('recreate'),
    inPlaceMs: stats('inPlace'),
    deploymentMs: stats('deployment'),
    deploymentWithSpecPodWritesMs: stats('deploymentSpecWrites'),
    recreateRatioVsDeployment: speedRatio(dep.median, timesOf(runs.recreate!).median),
    recreateRatioVsDeploymentWithSpecPodWrites: speedRatio(timesOf(runs.deploymentSpecWrites!).median, timesOf(runs.recreate!).median),
    inPlaceRatioVsDeploymentRecreate: speedRatio(dep.median, timesOf(runs.inPlace!).median),
    apiWritesPerPod: { recreate: writesPerPodOf(runs.recreate!, n).median, inPlace: writesPerPodOf(runs.inPlace!, n).median },
  };
}

export async function rolloutScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const n = sizes.rollout;
  const large = sizes.rolloutLarge.replicas;
  const r = sizes.repeats;
  const batch = resolveMaxUnavailable(MAX_UNAVAILABLE, n);
  const recreateBound = recreateRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS);
  const inPlaceBound = inPlaceRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS.restartMs, POD_DELAYS.readyMs);
  const runs = await runSize(n, r, log);
  const bigRuns = await runSize(large, sizes.rolloutLarge.repeats, log);
  const depMs = timesOf(runs.deployment!).median;
  const rows: Cell[][] = [...sizeRows(n, runs), ...sizeRows(large, bigRuns)];
  const bigData = largeSizeData(large, sizes.rolloutLarge.repeats, bigRuns);
  const stats = (key: string) => {
    const t = timesOf(runs[key]!);
    return { median: t.median, min: t.min, max: t.max };
  };
  const parameters = { replicas: n, repeats: r, maxUnavailable: MAX_UNAVAILABLE, maxSurge: 0, podDelaysMs: POD_DELAYS };
  const steps = timeline(n, runs);
  const recreateRatio = speedRatio(depMs, timesOf(runs.recreate!).median);
  const inPlaceRatio = speedRatio(depMs, timesOf(runs.inPlace!).median);
  const specWritesRatio = speedRatio(timesOf(runs.deploymentSpecWrites!).median, timesOf(runs.recreate!).median);
  return {
    title: `Rollout of ${n} and ${large} pods (image change, maxUnavailable ${MAX_UNAVAILABLE}, no surge)`,
    method: [
      `Each workload is created with N Ready pods first (not timed); then its container image is changed with one JSON patch. Each variant runs ${r} time(s) at N = ${n} and ${sizes.rolloutLarge.repeats} time(s) at N = ${large}, alternating as in the scale-out; times are the median, with min–max when there are several runs.`,
      'Time: from the patch until the watcher sees exactly N live pods, all Ready, each running the new image (spec and container status).',
      `Lower bound: ceil(N / maxUnavailable) batches (N = ${n}: ceil(${n} / ${batch}) = ${Math.ceil(n / batch)}), each at least one pod's simulated delays:`,
      `start + ready = ${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms for a recreated pod, restart + ready = ${POD_DELAYS.restartMs} + ${POD_DELAYS.readyMs} ms for an in-place update.`,
      `Terminations (${POD_DELAYS.terminateMs} ms) are left out: a terminating pod no longer counts as a replica, so its replacement need not wait for it. API round trips, scheduling and watch latency are left out too,`,
      'so the bound is what an infinitely fast control plane would reach; "per batch" is the median time divided by the batch count.',
      'Writes and CPU as in the scale-out table (the bench\'s own patch excluded).',
      `"${SPEC_WRITES_LABEL}": as in the scale-out, the Deployment's pods carry the CloneSet's readiness gates and initial lifecycle state, and a stand-in writes each new pod's gate conditions and state Normal as the CloneSet controller does; what is left between it and CloneSet ReCreate is the CloneSet's own way of replacing a pod (the specified-delete label, one pass before the delete) and the controller itself.`,
    ].join(' '),
    headers: ['workload', 'N', 'runs', 'time to all updated and Ready (s)', 'lower bound (s)', '× bound', 'per batch (s)', 'Deployment / CloneSet', 'API writes / pod', 'observed writes / pod', 'CPU s / 100 pods', 'writes by kind (last run)'],
    rows,
    notes: [
      `N = ${n}: the Deployment's median time divided by CloneSet ReCreate's: ${fixed(recreateRatio)}; by CloneSet InPlaceIfPossible's: ${fixed(inPlaceRatio)}. N = ${large}: ${fixed(bigData.recreateRatioVsDeployment as number)} and ${fixed(bigData.inPlaceRatioVsDeploymentRecreate as number)} (≥ 1.00: the CloneSet is at least as fast).`,
      `With the CloneSet's pod writes on its new pods, the Deployment's time divided by CloneSet ReCreate's: ${fixed(specWritesRatio)} at N = ${n}, ${fixed(bigData.recreateRatioVsDeploymentWithSpecPodWrites as number)} at N = ${large}.`,
      'Reading the CloneSet ReCreate row: one pass labels the chosen pods specified-delete and deletes each once its label landed (the deletes the next pass\'s Scale step would make), the next creates the replacements in slow-start batches (1, 2, 4...) with each new pod\'s readiness-gate condition written beside the next batch; a new pod also needs its PreparingNormal→Normal label patch (after scheduling) before it counts. Writes to different pods in one pass run concurrently (as many at a time as the client\'s 32 kept-alive connections carry); the passes are sequential, and so are the slow-start batches (as in the ReplicaSet controller).',
    ],
    extraTables: [
      {
        caption: `Where the time goes: one rollout of ${n} pods per workload (its last run), seconds from the patch until the given share of the pods had reached each milestone, as the bench's watcher saw it. "marked specified-delete": the old pod labelled for its ReCreate delete; "gate False"/"gate True": the CloneSet's InPlaceUpdateReady condition; "spec updated": an existing pod's spec on the new image (in place); "containers running new image": the simulated kubelet runs it (a restart in place, a start for a new pod); "state Normal": the lifecycle label back to Normal; "available": Ready on the new image and (CloneSet) state Normal, what frees a maxUnavailable slot.`,
        headers: ['workload', 'milestone', ...FRACTIONS.map((f) => `${f * 100}% of pods (s)`)],
        rows: steps.milestones,
      },
      {
        caption: processCpuCaption('the image patch'),
        headers: PROCESS_CPU_HEADERS,
        rows: [
          ...VARIANTS.map(({ key, label }) => processCpuRow(label, n, runs[key]!)),
          ...VARIANTS.map(({ key, label }) => processCpuRow(label, large, bigRuns[key]!)),
        ],
      },
      {
        caption: 'Waits between batches (same runs): walking the pods\' "available" and write times in order (a write: marked, deleted, created, gate False or spec updated), every write that follows pods becoming available closes a gap from the last of them to that write. The sum is the time the rollout spent waiting for its own next write rather than for pods.',
        headers: ['workload', 'patch → first write (s)', 'gaps', 'median gap (s)', 'largest gap (s)', 'sum of gaps (s)', 'rollout time (s)'],
        rows: steps.gaps,
      },
    ],
    data: {
      rollout: {
        parameters,
        samples: { cloneSetMs: timesOf(runs.recreate!).samples, deploymentMs: timesOf(runs.deployment!).samples, cloneSetApiWritesPerPod: writesPerPodOf(runs.recreate!, n).samples },
        cloneSetMs: stats('recreate'),
        deploymentMs: stats('deployment'),
        deploymentWithSpecPodWritesMs: stats('deploymentSpecWrites'),
        lowerBoundMs: recreateBound,
        ratioVsDeployment: recreateRatio,
        ratioVsDeploymentWithSpecPodWrites: specWritesRatio,
        processCpu: Object.fromEntries(VARIANTS.map(({ key }) => [key, processCpuMedians(runs[key]!)])),
        apiWritesPerPod: writesPerPodOf(runs.recreate!, n).median,
      },
      inPlace: {
        parameters,
        samples: { cloneSetMs: timesOf(runs.inPlace!).samples, deploymentRecreateMs: timesOf(runs.deployment!).samples, cloneSetApiWritesPerPod: writesPerPodOf(runs.inPlace!, n).samples },
        cloneSetMs: stats('inPlace'),
        lowerBoundMs: inPlaceBound,
        ratioVsDeploymentRecreate: inPlaceRatio,
      },
      rolloutTimeline: steps.data,
      rolloutLarge: bigData,
      apiWrites: { inPlacePerPod: writesPerPodOf(runs.inPlace!, n).median, recreatePerPod: writesPerPodOf(runs.recreate!, n).median },
      cpu: {
        secondsPer100PodsUpdated: cpuPer100PodsOf(runs.inPlace!, n).median,
        secondsPer100PodsUpdatedSamples: cpuPer100PodsOf(runs.inPlace!, n).samples,
        secondsPer100PodsRecreated: cpuPer100PodsOf(runs.recreate!, n).median,
      },
    },
  };
}
