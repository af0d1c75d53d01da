// Scenario 2: rollout of N pods to a new image with maxUnavailable 20% and no surge: CloneSet
// ReCreate and InPlaceIfPossible vs a Deployment (RollingUpdate maxSurge 0).
import { inNamespace } from '../kube.ts';
import { allReadyOn } from '../pods.ts';
import { fixed, seconds, type BenchSizes, type Cell, type Section } from '../result.ts';
import { inPlaceRolloutLowerBoundMs, recreateRolloutLowerBoundMs, resolveMaxUnavailable } from '../stats.ts';
import { IMAGE_V1, IMAGE_V2, POD_DELAYS, cloneSet, deployment } from '../workloads.ts';
import { createWorkload, formatByKind, setImage, timed, waitStatusSettled, withSession, type Kind, type TimedRun } from '../workload-run.ts';

const MAX_UNAVAILABLE = '20%';

type Log = (line: string) => void;

async function rollout(kind: Kind, n: number, updateType: 'ReCreate' | 'InPlaceIfPossible'): Promise<TimedRun> {
  return inNamespace(`bench-roll-${kind.toLowerCase()}`, (ns) =>
    withSession(kind, ns, async (s) => {
      const spec = { name: 'app', replicas: n, image: IMAGE_V1, maxUnavailable: MAX_UNAVAILABLE, updateType };
      await createWorkload(kind, ns, kind === 'CloneSet' ? cloneSet(spec) : deployment(spec));
      await s.observer.waitFor(`${n} Ready pods`, (pods) => allReadyOn(pods, n), 60_000 + n * 500);
      await waitStatusSettled(kind, ns, 'app', n, 30_000);
      return timed(s, 'app', n, 1, () => setImage(kind, ns, 'app', IMAGE_V2), (pods) => allReadyOn(pods, n, IMAGE_V2), 120_000 + n * 1_000);
    }),
  );
}

export async function rolloutScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const n = sizes.rollout;
  const batch = resolveMaxUnavailable(MAX_UNAVAILABLE, n);
  const recreateBound = recreateRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS);
  const inPlaceBound = inPlaceRolloutLowerBoundMs(n, MAX_UNAVAILABLE, POD_DELAYS.restartMs, POD_DELAYS.readyMs);
  const runs: { label: string; bound: number; run: TimedRun }[] = [];
  log(`rollout ${n}: CloneSet ReCreate`);
  runs.push({ label: 'CloneSet ReCreate', bound: recreateBound, run: await rollout('CloneSet', n, 'ReCreate') });
  log(`rollout ${n}: Deployment`);
  runs.push({ label: 'Deployment RollingUpdate (maxSurge 0)', bound: recreateBound, run: await rollout('Deployment', n, 'ReCreate') });
  log(`rollout ${n}: CloneSet InPlaceIfPossible`);
  runs.push({ label: 'CloneSet InPlaceIfPossible', bound: inPlaceBound, run: await rollout('CloneSet', n, 'InPlaceIfPossible') });
  const rows: Cell[][] = runs.map(({ label, bound, run }) => [
    label,
    n,
    seconds(run.ms),
    seconds(bound),
    fixed(run.ms / bound),
    seconds(run.ms / Math.ceil(n / batch)),
    run.controller?.writes ?? 'n/a',
    run.controller ? fixed(run.controller.writes / n) : 'n/a',
    fixed(run.observedControllerWrites / n),
    run.controller ? formatByKind(run.controller.byKind) : `pods created ${run.observed.podCreates}, deleted ${run.observed.podDeletes}, workload writes ${run.observed.workloadWrites - 1}, events ${JSON.stringify(run.observed.eventsByComponent)}`,
  ]);
  return {
    title: `Rollout of ${n} pods (image change, maxUnavailable ${MAX_UNAVAILABLE}, no surge)`,
    method: [
      `Each workload is created with ${n} Ready pods first (not timed); then its container image is changed with one JSON patch.`,
      'Time: from the patch until the watcher sees exactly N live pods, all Ready, each running the new image (spec and container status).',
      `Lower bound: ceil(N / maxUnavailable) = ceil(${n} / ${batch}) = ${Math.ceil(n / batch)} batches, each at least one pod's simulated delays:`,
      `start + ready = ${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms for a recreated pod, restart + ready = ${POD_DELAYS.restartMs} + ${POD_DELAYS.readyMs} ms for an in-place update.`,
      `Terminations (${POD_DELAYS.terminateMs} ms) are left out: a terminating pod no longer counts as a replica, so its replacement need not wait for it. API round trips, scheduling and watch latency are left out too,`,
      'so the bound is what an infinitely fast control plane would reach; "per batch" is the measured time divided by the batch count.',
      'Writes as in the scale-out table (the bench\'s own patch excluded).',
    ].join(' '),
    headers: ['workload', 'N', 'time to all updated and Ready (s)', 'lower bound (s)', '× bound', 'per batch (s)', 'API writes', 'API writes / pod', 'observed writes / pod', 'writes by kind'],
    rows,
    notes: [
      `CloneSet ReCreate took ${fixed(runs[0]!.run.ms / runs[1]!.run.ms)}× the Deployment's time; CloneSet InPlaceIfPossible ${fixed(runs[2]!.run.ms / runs[1]!.run.ms)}×.`,
      'Reading the CloneSet ReCreate row: each pass labels the chosen pods specified-delete, deletes them, then creates the replacements in slow-start batches (1, 2, 4...) with each new pod\'s readiness-gate condition written beside the next batch; a new pod also needs its PreparingNormal→Normal label patch (after scheduling) before it counts. Writes to different pods in one pass run concurrently (16 at a time); the passes are sequential, and so are the slow-start batches (as in the ReplicaSet controller).',
    ],
  };
}
