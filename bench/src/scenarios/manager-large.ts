// Scenario manager-large (run only when --only names it): C CloneSets of P pods (50 × 1,000 =
// 50,000) under one manager. The CloneSets are made by the controller with one pod each; the
// other pods are created straight through the API as the controller makes them (./cloned-pods.ts).
// Measured: the cache's memory (the memory child: heap and RSS per pod against the pod's served
// JSON, a relist's peak), the controller's start (caches synced, first reconcile), its RSS and
// heap, the Lease, and how long one CloneSet's template change takes to be planned and acted on
// (the first write of its rollout) while the others are settled: with only that CloneSet at
// full size, then with all of them, which must not take longer.
import { DEFAULT_MAX_CONCURRENT_RECONCILES, type KubeObject } from '@cloneset-suite/kube-runtime';
import { KRUISE_READINESS_GATES } from '@cloneset-suite/api-types';
import { fillCloneSet } from '../cloned-pods.ts';
import { ControllerProcess, SHIPPED_DEFAULTS, SHIPPED_LEASE_TIMINGS, UNTHROTTLED } from '../controller-process.ts';
import { diffSnapshots, type ChildStartup, type EventLoopDelay, type MemoryReading, type WriteSnapshot } from '../controller-protocol.ts';
import { benchClient, cloneSetResource, inNamespace, now, sleep } from '../kube.ts';
import { BENCH_LEASE_NAME } from '../leader-session.ts';
import { LeaseObserver } from '../lease-observer.ts';
import { leasesLost, summarizeRenewals, type RenewalSummary } from '../lease-renewals.ts';
import { memorySize, type MemoryReport, type MemorySize } from '../memory-report.ts';
import { NamespaceObserver } from '../observer.ts';
import { allReadyOn, someMatching } from '../pod-goal.ts';
import { isReady, runsImage, type Pod } from '../pods.ts';
import { fixed, seconds, type BenchSizes, type Cell, type LargeSizes, type Section } from '../result.ts';
import { sampleStats, type SampleStats } from '../samples.ts';
import { IMAGE_V1, POD_DELAYS, cloneSet } from '../workloads.ts';
import { createWorkload, setImage } from '../workload-run.ts';
import { measureCache } from './memory.ts';

type Log = (line: string) => void;

const ACQUIRE_TIMEOUT_MS = 60_000;
const GONE_TIMEOUT_MS = 30 * 60_000;
const GATE = KRUISE_READINESS_GATES.inPlaceUpdateReady;

const csName = (i: number): string => `cs-${String(i).padStart(2, '0')}`;
/** The CloneSet whose template changes: the first one. */
const CHANGED = csName(0);

/** One measured start of the controller: from its fork until every CloneSet was reconciled, then the template changes. */
interface ManagerRun {
  pods: number;
  /** From the fork until the child answered (caches synced), in the parent's ms. */
  startedMs: number;
  /** The child's own: since its process started. */
  startup: ChildStartup;
  /** From the fork until every CloneSet's status agreed with its pods. */
  allSettledMs: number;
  /** Per template change: from the patch until the bench saw its first write (a pod's gate False, or its spec updated). */
  firstWriteMs: SampleStats;
  /** Per template change: from the patch until the pod it updated was Ready on the new image and the status said so. */
  doneMs: SampleStats;
  /** The child's event loop from its start until every CloneSet settled: the initial list and the first reconciles. */
  startupLoop?: EventLoopDelay;
  /** The child over the template changes. */
  changes: WriteSnapshot;
  memory: MemoryReading;
  renewals: RenewalSummary;
  leasesLost: number;
  failure?: string;
}

/** Every CloneSet's status agrees with its pods (its replicas Ready and updated, the generation observed). */
async function waitAllSettled(ns: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await benchClient().resource<KubeObject & { spec?: { replicas?: number }; status?: Record<string, number> }>(cloneSetResource).list({ namespace: ns })).items;
    const settled = list.every((cs) => {
      const s = cs.status ?? {};
      return s.observedGeneration === cs.metadata?.generation && s.replicas === cs.spec?.replicas && s.readyReplicas === cs.spec?.replicas;
    });
    if (settled) return;
    if (Date.now() > deadline) throw new Error(`the CloneSets of ${ns} did not settle within ${timeoutMs} ms`);
    await sleep(500);
  }
}

/** The CloneSet's status counts `updated` pods of its current revision, Ready. */
async function waitUpdated(ns: string, name: string, updated: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cs = await benchClient().resource<KubeObject & { status?: Record<string, number> }>(cloneSetResource).get(ns, name);
    const s = cs.status ?? {};
    if (s.observedGeneration === cs.metadata?.generation && s.updatedReplicas === updated && s.updatedReadyReplicas === updated) return;
    if (Date.now() > deadline) throw new Error(`${ns}/${name}: ${updated} updated Ready pods not reported within ${timeoutMs} ms: ${JSON.stringify(s)}`);
    await sleep(200);
  }
}

const gateFalse = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === GATE && c.status === 'False') ?? false;
const specOn = (p: Pod, image: string): boolean => (p.spec?.containers ?? []).some((c) => c.image === image);

/**
 * `count` template changes of CHANGED (an image each; its partition keeps all pods but one at the
 * old revision, so each change updates one pod in place): per change, the time to its first write
 * and until it is done.
 */
async function templateChanges(ns: string, count: number, run: number): Promise<{ firstWriteMs: number[]; doneMs: number[] }> {
  const observer = await NamespaceObserver.start(ns, { podLabelSelector: `app=${CHANGED}`, podsOnly: true });
  const firstWriteMs: number[] = [];
  const doneMs: number[] = [];
  try {
    for (let k = 0; k < count; k++) {
      const image = `${IMAGE_V1}-${run}-${k}`;
      const t0 = now();
      const first = observer.waitFor(`the first write of ${CHANGED}'s change to ${image}`, someMatching(1, (p) => specOn(p, image) || gateFalse(p)), 120_000);
      const done = observer.waitFor(`${CHANGED}'s pod on ${image}`, someMatching(1, (p) => isReady(p) && runsImage(p, image)), 120_000);
      await setImage('CloneSet', ns, CHANGED, image);
      firstWriteMs.push((await first) - t0);
      await done;
      await waitUpdated(ns, CHANGED, 1, 60_000);
      doneMs.push(now() - t0);
    }
  } finally {
    observer.stop();
  }
  return { firstWriteMs, doneMs };
}

/** Starts a controller child on the namespace, waits until it settled every CloneSet, times the template changes. */
async function measureManager(ns: string, pods: number, sizes: LargeSizes, run: number, log: Log): Promise<ManagerRun> {
  const identity = `bench-manager-${process.pid}-${run}`;
  const lease = await LeaseObserver.start(ns, BENCH_LEASE_NAME);
  const t0 = now();
  const controller = await ControllerProcess.start({
    namespace: ns,
    ...SHIPPED_DEFAULTS,
    // The controller-manager's default workers: 50 CloneSets are 50 keys.
    maxConcurrentReconciles: DEFAULT_MAX_CONCURRENT_RECONCILES,
    leaderElection: { name: BENCH_LEASE_NAME, identity, ...SHIPPED_LEASE_TIMINGS },
  });
  const startedMs = now() - t0;
  try {
    let failure: string | undefined;
    let allSettledMs = Number.NaN;
    let changes = { firstWriteMs: [] as number[], doneMs: [] as number[] };
    let before: WriteSnapshot | undefined;
    // Renewals count from when the child held the Lease (its start-up and first acquisition are not renewals).
    let heldFrom = t0;
    try {
      await controller.unlessStopped(lease.waitForHolder(identity, ACQUIRE_TIMEOUT_MS));
      heldFrom = now();
      await controller.unlessStopped(waitAllSettled(ns, 300_000 + pods * 10));
      allSettledMs = now() - t0;
      // The child's first snapshot: its loop since it started.
      before = await controller.snapshot();
      log(`manager-large: ${pods} pods: ${sizes.templateChanges} template changes of ${CHANGED}`);
      changes = await controller.unlessStopped(templateChanges(ns, sizes.templateChanges, run));
    } catch (err) {
      failure = (err as Error).message.split('\n')[0];
      log(`manager-large: ${pods} pods failed: ${failure}`);
    }
    const after = await controller.snapshot();
    const memory = await controller.memory();
    const startup = await controller.startup();
    const renewals = summarizeRenewals(lease.sightings(), { startMs: heldFrom, endMs: now() });
    return {
      pods,
      startedMs,
      startup,
      allSettledMs,
      firstWriteMs: sampleStats(changes.firstWriteMs),
      doneMs: sampleStats(changes.doneMs),
      startupLoop: before?.eventLoop,
      changes: before ? diffSnapshots(before, after) : after,
      memory,
      renewals,
      leasesLost: leasesLost(renewals, { identity, renewDeadlineMs: SHIPPED_LEASE_TIMINGS.renewDeadlineMs, stoppedFor: controller.stoppedFor }),
      ...(failure ? { failure } : {}),
    };
  } finally {
    await controller.stop();
    lease.stop();
  }
}

/** Until `replicas` pods of the namespace are Ready (a watch, its pods only). */
async function waitPodsReady(ns: string, replicas: number, timeoutMs: number): Promise<void> {
  const observer = await NamespaceObserver.start(ns, { podsOnly: true });
  try {
    await observer.waitFor(`${replicas} Ready pods in ${ns}`, allReadyOn(replicas), timeoutMs);
  } finally {
    observer.stop();
  }
}

/** The CloneSets with one pod each, made by the controller (its revisions, labels and gates); the controller stopped after. */
async function createCloneSets(ns: string, sizes: LargeSizes, log: Log): Promise<void> {
  log(`manager-large: ${sizes.managerCloneSets} CloneSets of 1 pod, made by the controller`);
  const setup = await ControllerProcess.start({ namespace: ns, ...UNTHROTTLED, maxConcurrentReconciles: DEFAULT_MAX_CONCURRENT_RECONCILES });
  try {
    for (let i = 0; i < sizes.managerCloneSets; i++) {
      // In place, and all but one pod kept at the old revision: each template change updates one pod.
      const spec = { name: csName(i), replicas: 1, image: IMAGE_V1, updateType: 'InPlaceIfPossible' as const, partition: sizes.managerPodsPerCloneSet - 1 };
      await createWorkload('CloneSet', ns, cloneSet(spec));
    }
    await waitPodsReady(ns, sizes.managerCloneSets, 300_000);
    await waitAllSettled(ns, 120_000);
  } finally {
    await setup.stop();
  }
}

async function fill(ns: string, names: readonly string[], pods: number, totalPods: number, log: Log): Promise<void> {
  log(`manager-large: ${names.length} CloneSet(s) to ${pods} pods each, straight through the API (${totalPods} pods in all)`);
  for (const name of names) await fillCloneSet(ns, name, pods);
  await waitPodsReady(ns, totalPods, 600_000 + totalPods * 30);
}

const mib = (b: number): string => fixed(b / 2 ** 20, 0);
const s2 = (x: number): string => seconds(x);

function managerRow(r: ManagerRun, cloneSets: number, perCloneSet: number): Cell[] {
  const loop = r.changes.eventLoop;
  return [
    r.pods === cloneSets * perCloneSet ? `${cloneSets} × ${perCloneSet}` : `1 × ${perCloneSet} and ${cloneSets - 1} × 1`,
    r.pods,
    s2(r.startup.cacheSyncedMs),
    r.startup.firstReconcileMs === undefined ? 'n/a' : s2(r.startup.firstReconcileMs),
    s2(r.allSettledMs),
    r.startupLoop ? `${fixed(r.startupLoop.maxMs, 0)} / ${fixed(r.startupLoop.stalls.maxMainThreadCpuMs, 0)} / ${fixed(r.startupLoop.stalls.gcPauseMaxMs, 0)}` : 'n/a',
    r.failure && !r.firstWriteMs.samples.length ? `failed: ${r.failure}` : `${fixed(r.firstWriteMs.median, 0)} (${fixed(r.firstWriteMs.min, 0)}–${fixed(r.firstWriteMs.max, 0)})`,
    `${s2(r.doneMs.median)}`,
    `${fixed(loop.p99Ms, 1)} / ${fixed(loop.maxMs, 1)} / ${fixed(loop.stalls.maxMainThreadCpuMs, 1)}`,
    `${fixed(loop.stalls.gcPauseMaxMs, 1)}`,
    `${mib(r.memory.rssBytes)} / ${mib(r.memory.heapUsedBytes)}`,
    `${mib(r.memory.settledRssBytes)} / ${mib(r.memory.settledHeapUsedBytes)}`,
    mib(r.memory.maxRssBytes),
    r.renewals.renewals,
    `${s2(r.renewals.largestRenewGapMs)} / ${s2(r.renewals.largestSeenGapMs)}`,
    r.leasesLost,
  ];
}

function runData(r: ManagerRun): Record<string, unknown> {
  return {
    pods: r.pods,
    startedMs: r.startedMs,
    cacheSyncedMs: r.startup.cacheSyncedMs,
    firstReconcileMs: r.startup.firstReconcileMs ?? null,
    allSettledMs: r.allSettledMs,
    startupEventLoop: r.startupLoop ?? null,
    templateChangeFirstWriteMs: r.firstWriteMs,
    templateChangeDoneMs: r.doneMs,
    eventLoopP99Ms: r.changes.eventLoop.p99Ms,
    eventLoopMaxMs: r.changes.eventLoop.maxMs,
    stalls: r.changes.eventLoop.stalls,
    writesByKind: r.changes.byKind,
    memory: r.memory,
    renewals: r.renewals,
    leasesLost: r.leasesLost,
    failure: r.failure ?? null,
  };
}

export async function managerLargeScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const large = sizes.large;
  const c = large.managerCloneSets;
  const p = large.managerPodsPerCloneSet;
  const total = c * p;
  let baseline: MemoryReport | undefined;
  let cache: MemorySize | undefined;
  let cacheReport: MemoryReport | undefined;
  const runs: ManagerRun[] = [];
  await inNamespace(
    'bench-manager-large',
    async (ns) => {
      log('manager-large: the memory child on the empty namespace');
      baseline = await measureCache(ns, 0);
      await createCloneSets(ns, large, log);
      await fill(ns, [CHANGED], p, p + c - 1, log);
      log(`manager-large: the controller on ${p + c - 1} pods`);
      runs.push(await measureManager(ns, p + c - 1, large, 0, log));
      await fill(ns, Array.from({ length: c - 1 }, (_, i) => csName(i + 1)), p, total, log);
      log(`manager-large: the memory child on ${total} pods`);
      cacheReport = await measureCache(ns, total);
      cache = memorySize(baseline, cacheReport, undefined);
      log(`manager-large: the controller on ${total} pods`);
      runs.push(await measureManager(ns, total, large, 1, log));
    },
    { goneTimeoutMs: GONE_TIMEOUT_MS },
  );
  const [one, all] = runs;
  const growth = one && all ? all.firstWriteMs.median / one.firstWriteMs.median : Number.NaN;
  const notes: string[] = [];
  if (cache && baseline && cacheReport) {
    notes.push(
      `The cache (the memory child, after GC): heap ${mib(cacheReport.heapUsed)} MiB with ${total} pods against ${mib(baseline.heapUsed)} MiB on the empty namespace, ${fixed(cache.bytesPerPod / 1024, 2)} KiB per pod against ${fixed(cache.jsonBytesPerPod / 1024, 2)} KiB of a pod's JSON as served (heap / served JSON ${fixed(cache.bytesPerPodOverJson, 2)}); RSS ${mib(cacheReport.rss)} MiB (${fixed(cache.rssMiBPer1000Pods, 1)} MiB per 1,000 pods over the empty process's ${mib(baseline.rss)} MiB); a relist of every pod into the full cache rose RSS by ${mib(cache.relistRssOverSettledBytes)} MiB and the live heap by ${mib(cache.relistLiveHeapOverSettledBytes)} MiB and held the event loop ${fixed(cache.relistLoopMaxMs, 0)} ms at the longest (the main thread itself busy at most ${fixed(cache.relistMainThreadMaxMs, 0)} ms in one stall, GC pauses up to ${fixed(cache.relistGcPauseMaxMs, 0)} ms); peak RSS ${mib(cacheReport.maxRss)} MiB.`,
    );
  }
  if (one && all) {
    notes.push(
      `One template change's first write took ${fixed(all.firstWriteMs.median, 0)} ms (median of ${all.firstWriteMs.samples.length}) with ${total} pods under the manager against ${fixed(one.firstWriteMs.median, 0)} ms with ${one.pods}: ×${fixed(growth)} (1.00: the other CloneSets' pods cost the change nothing).`,
    );
  }
  notes.push(`Leases lost: ${runs.reduce((sum, r) => sum + r.leasesLost, 0)} (0 wanted).`);
  for (const r of runs) if (r.failure) notes.push(`The run on ${r.pods} pods did not finish: ${r.failure}.`);
  return {
    title: `${total} pods under one manager: ${c} CloneSets of ${p}`,
    method: [
      `Run only when \`--only\` names \`manager-large\`. ${c} CloneSets (InPlaceIfPossible, partition ${p - 1}) are created in one namespace and a controller child makes one pod of each; stopped, it leaves them to the bench, which brings each to ${p} pods straight through the API as the controller makes them (the first pod's labels, annotations, owner reference and spec, an instance id of their own, bound to a node at creation, both readiness gates set True through /status), and the simulated kubelet makes them Ready. Pod delays as elsewhere (${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms).`,
      `A controller child (the shipped client limits qps ${SHIPPED_DEFAULTS.qps} / burst ${SHIPPED_DEFAULTS.burst}, ${DEFAULT_MAX_CONCURRENT_RECONCILES} workers, leader election with the shipped timings) is then started twice: once when only ${CHANGED} has ${p} pods (the others one each), once when all ${c} have. Each time: "caches synced" and "first reconcile" (finished) in seconds since its process started, "all settled" from its fork until every CloneSet's status agreed with its pods, and what its event loop waited for meanwhile (the initial list of every pod and the first reconciles): its largest delay, and "main thread busy", the most CPU the main thread itself used within any one stall of over 20 ms (no synchronous stretch was longer; the delay beyond it is the process waiting for one of the CPUs the apiserver, etcd and kwok share); then ${large.templateChanges} image changes of ${CHANGED}, each updating one pod in place (the partition keeps the rest), one after another: "first write" from the patch until the bench's watch on ${CHANGED}'s pods saw the pod's InPlaceUpdateReady condition False or its spec on the new image (the controller's first write of the change: planning, with the other CloneSets settled, plus a watch round trip each way), "done" until that pod was Ready on it and the status said so.`,
      'Memory: the controller child as it ran after the changes, and after a full GC; its peak RSS over its life (the initial list included). The cache alone: the memory scenario\'s child (see that section) on the same namespace.',
    ].join(' '),
    headers: ['CloneSets', 'pods', 'caches synced (s)', 'first reconcile (s)', 'all settled (s)', 'start-up: event loop max / main thread busy / longest GC pause (ms)', 'template change: first write (ms)', 'done (s)', 'event loop p99 / max / main thread busy (ms)', 'longest GC pause (ms)', 'RSS / heap (MiB)', 'after GC: RSS / heap (MiB)', 'peak RSS (MiB)', 'renewals', 'renewal gap: renewTime / seen (s)', 'leases lost'],
    rows: runs.map((r) => managerRow(r, c, p)),
    notes,
    data: {
      managerLarge: {
        parameters: { cloneSets: c, podsPerCloneSet: p, pods: total, templateChanges: large.templateChanges, clientLimits: SHIPPED_DEFAULTS, workers: DEFAULT_MAX_CONCURRENT_RECONCILES, lease: SHIPPED_LEASE_TIMINGS },
        runs: runs.map(runData),
        templateChangeGrowth: growth,
        cache: cache ?? null,
        cacheReport: cacheReport ?? null,
        baseline: baseline ?? null,
        leasesLost: runs.reduce((sum, r) => sum + r.leasesLost, 0),
      },
    },
  };
}
