// Child process (run with --expose-gc): the CloneSet controller's caches for one namespace,
// started and synced with no CloneSet to reconcile; prints the heap once the pod cache holds the
// expected count. argv[2]: JSON { namespace, expected }.
import { Manager, Resources, createLogger, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { createCloneSetController } from '@cloneset-suite/cloneset-controller';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { getHeapStatistics } from 'node:v8';

const { namespace, expected } = JSON.parse(process.argv[2] ?? '{}') as { namespace: string; expected: number };
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function settledHeap(): Promise<{ heapUsed: number; v8Used: number }> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(100);
  }
  return { heapUsed: process.memoryUsage().heapUsed, v8Used: getHeapStatistics().used_heap_size };
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
const deadline = Date.now() + 60_000;
while (pods.list().length !== expected) {
  if (Date.now() > deadline) throw new Error(`the pod cache holds ${pods.list().length} pods, expected ${expected}`);
  await sleep(200);
}
// Let the watch deliver the last status changes before measuring.
await sleep(1_000);
const heap = await settledHeap();
const cached = pods.list();
const jsonBytes = cached.reduce((sum, p) => sum + Buffer.byteLength(JSON.stringify(p)), 0);
process.stdout.write(`${JSON.stringify({ pods: cached.length, ...heap, avgJsonBytes: cached.length ? jsonBytes / cached.length : 0 })}\n`);
abort.abort();
await done;
process.exit(0);
