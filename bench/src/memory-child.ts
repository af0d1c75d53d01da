// Child process (run with --expose-gc): the CloneSet controller's caches for one namespace,
// started and synced with no CloneSet to reconcile; prints heap and RSS once the pod cache holds
// the expected count, then relists the pods into the full cache as the reflector does after a
// 410 and prints how far that went above the settled numbers, and the size of a pod's JSON as
// cached and as served (read from the relist's pages, before the informer's transform). argv[2]: JSON { namespace, expected }.
import { Manager, Resources, createLogger, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { createCloneSetController } from '@cloneset-suite/cloneset-controller';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { MemoryReport } from './memory-report.ts';
import { watchLoopStalls } from './loop-stalls.ts';

const { namespace, expected } = JSON.parse(process.argv[2] ?? '{}') as { namespace: string; expected: number };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function settled(): Promise<{ heapUsed: number; v8Used: number; rss: number }> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(100);
  }
  return { heapUsed: process.memoryUsage().heapUsed, v8Used: getHeapStatistics().used_heap_size, rss: process.memoryUsage.rss() };
}

const manager = new Manager({
  kubeConfig: loadKubeConfig(testKubeconfigPath()),
  qps: 5000,
  burst: 10000,
  logger: createLogger({ level: 'warn', base: { bench: 'memory' } }),
});
createCloneSetController(manager, { namespace });
const pods = manager.informers.informerFor(Resources.pods, { namespace });
const abort = new AbortController();
const done = manager.start(abort.signal);
await manager.informers.waitForCacheSync(abort.signal);
const deadline = Date.now() + 60_000 + expected * 10;
while (pods.list().length !== expected) {
  if (Date.now() > deadline) throw new Error(`the pod cache holds ${pods.list().length} pods, expected ${expected}`);
  await sleep(200);
}
// Let the watch deliver the last status changes before measuring.
await sleep(1_000);
const before = await settled();
const cached = pods.list();
const jsonBytes = cached.reduce((sum, p) => sum + Buffer.byteLength(JSON.stringify(p)), 0);

// A relist of the pods into the full cache, as the reflector runs it after a 410 (pages of 500,
// nothing changed meanwhile). Twice: once as it runs in production, sampling RSS after every
// page (the headroom a relist needs), once with a GC after every page, so the heap read is what
// the relist keeps alive (what no GC can free under a limit), not garbage awaiting collection.
async function relist(afterPage: () => void, onPage: (items: readonly unknown[]) => void = () => {}): Promise<void> {
  const session = pods.beginReplace();
  let listedVersion: string | undefined;
  for await (const page of manager.client.resource(Resources.pods).listPages({ namespace, limit: 500 })) {
    listedVersion ??= page.metadata?.resourceVersion;
    onPage(page.items);
    await session.addPage(page.items);
    afterPage();
  }
  await session.commit(listedVersion ?? '');
  afterPage();
}
let peakRss = before.rss;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
};
// The served size is the listed item re-serialized (compact, as the apiserver writes it), read
// before addPage hands it to the transform that drops managedFields; in the relist that collects
// garbage after every page, so the strings it makes never show in a reading.
let servedBytes = 0;
let servedItems = 0;
const measureServed = (items: readonly unknown[]): void => {
  for (const item of items) servedBytes += Buffer.byteLength(JSON.stringify(item));
  servedItems += items.length;
};
const sampler = setInterval(sampleRss, 10);
// How long the relist held the event loop at a stretch (a page taken in, the commit's slices),
// and how much of the longest stall was the main thread's own work (against waiting for a CPU).
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const stalls = watchLoopStalls();
await relist(sampleRss);
const relistStalls = stalls.take();
stalls.stop();
loopDelay.disable();
clearInterval(sampler);
await settled();
let peakLiveHeap = 0;
await relist(() => {
  gc();
  peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
}, measureServed);

const report: MemoryReport = {
  pods: cached.length,
  ...before,
  avgJsonBytes: cached.length ? jsonBytes / cached.length : 0,
  avgServedJsonBytes: servedItems ? servedBytes / servedItems : 0,
  relistPeakRss: peakRss,
  relistPeakLiveHeap: peakLiveHeap,
  relistLoopMaxMs: loopDelay.max / 1e6,
  relistMainThreadMaxMs: relistStalls.maxMainThreadCpuMs,
  relistGcPauseMaxMs: relistStalls.gcPauseMaxMs,
  maxRss: process.resourceUsage().maxRSS * 1024,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
abort.abort();
await done;
process.exit(0);
