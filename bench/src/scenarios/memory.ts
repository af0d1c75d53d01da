// Scenario 4: memory per cached pod. Pods created straight through the API (bare-pods.ts) fill
// a namespace and are made Ready by the simulated kubelet; a fresh child process runs the
// CloneSet controller's caches on it and reports its heap and RSS after GC, compared with the
// same child on an empty namespace, and how far RSS rises while it relists every pod.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { countReadyPods, createBarePods } from '../bare-pods.ts';
import { inNamespace, sleep } from '../kube.ts';
import { fixed, type BenchSizes, type Cell, type Section } from '../result.ts';
import { memorySize, type MemoryReport, type MemorySize } from '../memory-report.ts';

type Log = (line: string) => void;

const childEntry = fileURLToPath(new URL('../memory-child.ts', import.meta.url));

/** The memory child's report on `namespace` once its pod cache holds `expected` pods. */
export async function measureCache(namespace: string, expected: number): Promise<MemoryReport> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', childEntry, JSON.stringify({ namespace, expected })], {
    timeout: 120_000 + expected * 20,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as MemoryReport;
}

/** Waits until `pods` are Ready; past the deadline, answers how many are (the caller notes it). */
async function waitReady(ns: string, pods: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await countReadyPods(ns);
    if (ready >= pods || Date.now() > deadline) return ready;
    await sleep(5_000);
  }
}

const mib = (b: number): string => (b / 1024 / 1024).toFixed(1);

export async function memoryScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const rows: Cell[][] = [];
  const notes: string[] = [];
  let baseline: MemoryReport | undefined;
  const perSize: MemorySize[] = [];
  await inNamespace('bench-memory', async (ns) => {
    log('memory: baseline on an empty namespace');
    const base = await measureCache(ns, 0);
    baseline = base;
    rows.push([0, mib(base.heapUsed), '', '', '', '', '', '', mib(base.rss), '', '', '', '', '']);
    let previous: MemoryReport | undefined;
    let created = 0;
    for (const n of sizes.memory) {
      log(`memory: ${n} pods`);
      await createBarePods(ns, 'mem', created, n);
      created = n;
      const ready = await waitReady(ns, n, 60_000 + n * 50);
      if (ready < n) notes.push(`${ready} of the ${n} pods were Ready when measured (the simulated kubelet had not caught up); the others lack a Ready status, so they are slightly smaller.`);
      const r = await measureCache(ns, n);
      const size = memorySize(base, r, previous);
      perSize.push(size);
      rows.push([
        n,
        mib(r.heapUsed),
        mib(r.heapUsed - base.heapUsed),
        fixed(size.bytesPerPod / 1024, 1),
        size.marginalBytesPerPod === undefined ? '' : fixed(size.marginalBytesPerPod / 1024, 1),
        fixed(size.jsonBytesPerPod / 1024, 2),
        fixed(size.bytesPerPodOverJson, 2),
        fixed(size.cachedJsonBytesPerPod / 1024, 2),
        mib(r.rss),
        fixed(size.rssMiBPer1000Pods, 1),
        mib(size.relistRssOverSettledBytes),
        mib(size.relistLiveHeapOverSettledBytes),
        `${fixed(size.relistLoopMaxMs, 0)} / ${fixed(size.relistMainThreadMaxMs, 0)} / ${fixed(size.relistGcPauseMaxMs, 0)}`,
        mib(r.maxRss),
      ]);
      previous = r;
    }
  });
  notes.push(
    'The pods are created straight through the API (no owner), bound to the simulated nodes, Running and Ready with the simulated kubelet\'s status; a CloneSet\'s pods carry an ownerReference, a few more labels and a readiness gate, so they are slightly larger.',
    'RSS is what a container\'s memory limit is charged for; V8 keeps freed pages for a while, so RSS after GC is above the heap by the code, the buffers and the unused heap pages.',
  );
  // The headline numbers are the largest size's: fixed costs weigh least there.
  const largest = perSize.at(-1);
  return {
    title: 'Memory per cached pod',
    method: [
      'A fresh Node process (`--expose-gc`) creates the CloneSet controller on one namespace (pods, PVCs, ControllerRevisions, CloneSets and the cluster\'s nodes cached, with the controller\'s indexes), waits until its pod cache holds N pods, runs GC four times and reads `process.memoryUsage()` (heapUsed and rss).',
      'Per pod: (value − value of the same process on the empty namespace) / N; marginal: the heap difference between two sizes divided by the pod difference, which cancels fixed costs.',
      'Relist: the process then lists every pod again into its full cache as the informer does after a 410 (pages of 500, nothing changed), sampling RSS after each page; the rise over the settled RSS is the headroom a relist needs. It relists once more with a GC after each page: the rise of that heap over the settled heap is what a relist keeps alive (one page of listed JSON, and the objects that changed), which no GC can free under a limit. "Longest hold of the event loop": the event loop\'s largest delay (`monitorEventLoopDelay`) during the first relist, the longest the relist ran without letting a timer in (a page taken in, a slice of the commit); "main thread busy": the most CPU the main thread itself used within any one stall of over 20 ms (`process.threadCpuUsage`; the rest of a hold is the process waiting for a CPU); the longest GC pause: V8\'s longest stop of the main thread in that relist. Peak RSS: the process\'s high-water mark (`maxRSS`), its first list included.',
      'Served JSON: the average length of a pod item as the apiserver serves it in a list (managedFields included; the listed item re-serialized, read during the second relist before the informer\'s transform): the size the heap per pod is compared with, and `heap / served JSON` is that ratio (target <= 1). Cached JSON: the average `JSON.stringify` length of a pod as the cache holds it (managedFields dropped), for scale.',
    ].join(' '),
    headers: ['pods cached', 'heap used (MiB)', 'heap over baseline (MiB)', 'KiB / pod', 'marginal KiB / pod', 'served JSON KiB / pod', 'heap / served JSON', 'cached JSON KiB / pod', 'RSS (MiB)', 'RSS MiB / 1,000 pods', 'relist RSS rise (MiB)', 'relist live heap rise (MiB)', 'relist: longest hold of the event loop / main thread busy / longest GC pause (ms)', 'peak RSS (MiB)'],
    rows,
    notes,
    data: {
      memory: {
        parameters: { sizes: sizes.memory },
        baselineHeapBytes: baseline?.heapUsed,
        bytesPerPod: largest?.bytesPerPod,
        marginalBytesPerPod: largest?.marginalBytesPerPod,
        jsonBytesPerPod: largest?.jsonBytesPerPod,
        cachedJsonBytesPerPod: largest?.cachedJsonBytesPerPod,
        bytesPerPodOverJson: largest?.bytesPerPodOverJson,
        pods: largest?.pods,
        baselineRssBytes: baseline?.rss,
        rssBytes: largest?.rssBytes,
        heapMiBPer1000Pods: largest?.heapMiBPer1000Pods,
        rssMiBPer1000Pods: largest?.rssMiBPer1000Pods,
        relistRssOverSettledBytes: largest?.relistRssOverSettledBytes,
        relistLiveHeapOverSettledBytes: largest?.relistLiveHeapOverSettledBytes,
        relistLoopMaxMs: largest?.relistLoopMaxMs,
        relistMainThreadMaxMs: largest?.relistMainThreadMaxMs,
        relistGcPauseMaxMs: largest?.relistGcPauseMaxMs,
        maxRssBytes: largest?.maxRssBytes,
        perSize,
      },
    },
  };
}
