// What the memory child reports, and the per-size numbers the memory scenario derives from it
// (pure, so the arithmetic is tested without a cluster).

export interface MemoryReport {
  pods: number;
  /** process.memoryUsage().heapUsed after GC. */
  heapUsed: number;
  v8Used: number;
  /** Resident set size after GC: what a container's memory limit is charged for. */
  rss: number;
  /** Average JSON.stringify length of a pod as cached (managedFields dropped by the informer). */
  avgJsonBytes: number;
  /** Average JSON length of a pod item as the apiserver serves it in a list (managedFields included). */
  avgServedJsonBytes: number;
  /** Highest RSS seen while relisting every pod into the full cache. */
  relistPeakRss: number;
  /** Highest heap left after a GC at each page of a relist: what the relist keeps alive. */
  relistPeakLiveHeap: number;
  /** The event loop's longest delay while the first relist ran: how long it held the loop at a stretch. */
  relistLoopMaxMs: number;
  /**
   * The most CPU the main thread used within one stall of that relist (./loop-stalls.ts): the
   * relist's own longest stretch, however long the process then waited for a busy CPU.
   */
  relistMainThreadMaxMs: number;
  /** V8's longest garbage-collection pause during that relist. */
  relistGcPauseMaxMs: number;
  /** The process's RSS high-water mark (initial list included). */
  maxRss: number;
}

export interface MemorySize {
  pods: number;
  heapBytes: number;
  rssBytes: number;
  /** (value at N − value with no pod) / N. */
  bytesPerPod: number;
  rssBytesPerPod: number;
  heapMiBPer1000Pods: number;
  rssMiBPer1000Pods: number;
  /** Between this size and the previous one: fixed costs cancel out. */
  marginalBytesPerPod: number | undefined;
  /** A pod's JSON as served (managedFields included): what the heap per pod is compared with. */
  jsonBytesPerPod: number;
  /** A pod's JSON as cached (managedFields dropped). */
  cachedJsonBytesPerPod: number;
  /** bytesPerPod / jsonBytesPerPod: the target is <= 1. */
  bytesPerPodOverJson: number;
  /** How far RSS rose above the settled RSS while a relist ran: the headroom one relist needs. */
  relistRssOverSettledBytes: number;
  /** How far the live heap rose above the settled heap during a relist. */
  relistLiveHeapOverSettledBytes: number;
  relistLoopMaxMs: number;
  relistMainThreadMaxMs: number;
  relistGcPauseMaxMs: number;
  maxRssBytes: number;
}

const MiB = 1024 * 1024;

export function memorySize(baseline: MemoryReport, r: MemoryReport, previous: MemoryReport | undefined): MemorySize {
  const perPod = (value: number, base: number): number => (r.pods > 0 ? (value - base) / r.pods : NaN);
  const bytesPerPod = perPod(r.heapUsed, baseline.heapUsed);
  const rssBytesPerPod = perPod(r.rss, baseline.rss);
  return {
    pods: r.pods,
    heapBytes: r.heapUsed,
    rssBytes: r.rss,
    bytesPerPod,
    rssBytesPerPod,
    heapMiBPer1000Pods: (bytesPerPod * 1000) / MiB,
    rssMiBPer1000Pods: (rssBytesPerPod * 1000) / MiB,
    marginalBytesPerPod: previous && r.pods !== previous.pods ? (r.heapUsed - previous.heapUsed) / (r.pods - previous.pods) : undefined,
    jsonBytesPerPod: r.avgServedJsonBytes,
    cachedJsonBytesPerPod: r.avgJsonBytes,
    bytesPerPodOverJson: r.avgServedJsonBytes > 0 ? bytesPerPod / r.avgServedJsonBytes : NaN,
    relistRssOverSettledBytes: Math.max(0, r.relistPeakRss - r.rss),
    relistLiveHeapOverSettledBytes: Math.max(0, r.relistPeakLiveHeap - r.heapUsed),
    relistLoopMaxMs: r.relistLoopMaxMs,
    relistMainThreadMaxMs: r.relistMainThreadMaxMs,
    relistGcPauseMaxMs: r.relistGcPauseMaxMs,
    maxRssBytes: r.maxRss,
  };
}
