// Child process running the CloneSet controller for one namespace, as the controller-manager
// would (or, beside a Deployment, the stand-in making the CloneSet's pod writes): its own event
// loop (like the kube-controller-manager it is compared with), its own metrics registry. The
// parent asks for snapshots of the API writes, the CPU time used and the event-loop delay, for its
// memory and for when it synced and first reconciled, over IPC. Forked with --expose-gc, so a
// memory reading can say what is live after a full collection.
// argv[2]: JSON ControllerChildOptions.
import { KubeConfigTransport, Manager, createLogger, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { createCloneSetController } from '@cloneset-suite/cloneset-controller';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { createSpecPodWriter } from './spec-pod-writer.ts';
import { CountingTransport } from './counting-transport.ts';
import { watchLoopStalls } from './loop-stalls.ts';
import { type ChildReply, type ChildRequest, type ChildStartup, type ControllerChildOptions, type EventLoopDelay, type MemoryReading, type WriteSnapshot } from './controller-protocol.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as ControllerChildOptions;

const registry = new Registry();
const kubeConfig = loadKubeConfig(testKubeconfigPath());
// The elector on connections of its own, as in the controller-manager (its client there is built from the kubeconfig).
const transport = new CountingTransport(new KubeConfigTransport(kubeConfig), { leases: new KubeConfigTransport(kubeConfig) });
const manager = new Manager({
  kubeConfig,
  transport,
  qps: options.qps,
  burst: options.burst,
  registry,
  defaultResyncMs: options.resyncMs,
  logger: createLogger({ level: 'warn', base: { bench: options.namespace } }),
  // The elector gets its own client and limiter from the manager, as in the controller-manager.
  ...(options.leaderElection ? { leaderElection: { namespace: options.namespace, releaseOnCancel: true, ...options.leaderElection } } : {}),
});
if (options.runs === 'spec-pod-writer') createSpecPodWriter(manager, options.namespace);
else createCloneSetController(manager, { namespace: options.namespace, maxConcurrentReconciles: options.maxConcurrentReconciles });
const abort = new AbortController();
const done = manager.start(abort.signal);


async function metricSum(name: string, filter: (labels: Partial<Record<string, string | number>>) => boolean = () => true): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).filter((v) => filter(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

// 1 ms resolution: the issue asks whether any reconcile blocks the loop for more than a few ms.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
// Off while the profiler runs: its ticks would show in the profile (the profiled run's loop figures are not reported).
let loopStalls = watchLoopStalls();

/** The delay histogram and the stalls since the last call, in ms; reset for the next window. */
function takeLoopDelay(): EventLoopDelay {
  const window = { p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6, stalls: loopStalls.take() };
  loopDelay.reset();
  return window;
}

async function snapshot(): Promise<WriteSnapshot> {
  const cpu = process.cpuUsage();
  return {
    cpuMicros: cpu.user + cpu.system,
    eventLoop: takeLoopDelay(),
    writes: await metricSum('rest_client_requests_total', (l) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(l.method))),
    byKind: Object.fromEntries(transport.byKind),
    reconciles: await metricSum('controller_runtime_reconcile_total'),
    heapUsedBytes: process.memoryUsage().heapUsed,
    rssBytes: process.memoryUsage.rss(),
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

function memory(): MemoryReading {
  const live = process.memoryUsage();
  // Twice: the first collection's finalizers free more for the second.
  gc?.();
  gc?.();
  const settled = process.memoryUsage();
  return {
    heapUsedBytes: live.heapUsed,
    rssBytes: live.rss,
    settledHeapUsedBytes: settled.heapUsed,
    settledRssBytes: settled.rss,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

// When the caches synced and the first reconcile finished, in ms since the process started.
const startup: ChildStartup = { cacheSyncedMs: Number.NaN };
const firstReconcile = setInterval(() => {
  void metricSum('controller_runtime_reconcile_total').then((n) => {
    if (n === 0 || startup.firstReconcileMs !== undefined) return;
    startup.firstReconcileMs = performance.now();
    clearInterval(firstReconcile);
  });
}, 5);
firstReconcile.unref();

const reply = (r: ChildReply): void => void process.send?.(r);
// A leader that lost its Lease stops its controllers: the parent must hear of it, not time out.
void done.then((reason) => reply({ type: 'stopped', reason }));

// The profiler runs only between the parent's start and stop, so the profile shows the work
// measured, not the process's start-up; no inspector session exists in the timed runs.
let inspector: Session | undefined;

async function profile(action: 'profile-start' | 'profile-stop'): Promise<unknown> {
  if (!inspector) {
    inspector = new Session();
    inspector.connect();
  }
  if (action === 'profile-start') {
    loopStalls.stop();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
    return undefined;
  }
  const { profile: taken } = await inspector.post('Profiler.stop');
  loopStalls = watchLoopStalls();
  return taken;
}

process.on('message', (raw: unknown) => {
  const msg = raw as ChildRequest;
  if (msg.type === 'snapshot') {
    void snapshot().then((s) => reply({ type: 'snapshot', id: msg.id, snapshot: s }));
  } else if (msg.type === 'memory') {
    reply({ type: 'memory', id: msg.id, memory: memory() });
  } else if (msg.type === 'startup') {
    reply({ type: 'startup', id: msg.id, startup });
  } else if (msg.type === 'profile-start' || msg.type === 'profile-stop') {
    void profile(msg.type).then((p) => reply({ type: 'profile', id: msg.id, profile: p }));
  } else if (msg.type === 'stop') {
    abort.abort();
    void done.finally(() => process.exit(0));
  }
});
// Timings start from a warm controller, as with the long-running kube-controller-manager.
await manager.informers.waitForCacheSync(abort.signal);
startup.cacheSyncedMs = performance.now();
reply({ type: 'started' });
