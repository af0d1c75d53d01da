// Scenario 4: heap per cached pod. A ReplicaSet (the kube-controller-manager, not the
// controller under test) fills a namespace with Ready pods; a fresh child process runs the
// CloneSet controller's caches on it and reports its heap after GC, compared with the same
// child on an empty namespace.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mergePatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, inNamespace, replicaSetResource, sleep } from '../kube.ts';
import { fixed, type BenchSizes, type Cell, type Section } from '../result.ts';
import { replicaSet } from '../workloads.ts';

type Log = (line: string) => void;

const childEntry = fileURLToPath(new URL('../memory-child.ts', import.meta.url));

interface HeapReport {
  pods: number;
  heapUsed: number;
  v8Used: number;
  avgJsonBytes: number;
}

async function measure(namespace: string, expected: number): Promise<HeapReport> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', childEntry, JSON.stringify({ namespace, expected })], {
    timeout: 120_000,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as HeapReport;
}

async function waitReady(ns: string, replicas: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rs = (await benchClient().resource<KubeObject>(replicaSetResource).get(ns, 'mem')) as { status?: { readyReplicas?: number } };
    if (rs.status?.readyReplicas === replicas) return;
    if (Date.now() > deadline) throw new Error(`ReplicaSet ${ns}/mem: ${rs.status?.readyReplicas ?? 0}/${replicas} ready`);
    await sleep(1_000);
  }
}

const mib = (b: number): string => (b / 1024 / 1024).toFixed(1);

export async function memoryScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const rows: Cell[][] = [];
  const notes: string[] = [];
  let baselineHeapBytes: number | undefined;
  const perSize: { pods: number; heapBytes: number; bytesPerPod: number; marginalBytesPerPod: number | undefined; jsonBytesPerPod: number }[] = [];
  await inNamespace('bench-memory', async (ns) => {
    log('memory: baseline on an empty namespace');
    const base = await measure(ns, 0);
    baselineHeapBytes = base.heapUsed;
    rows.push([0, mib(base.heapUsed), '', '', '', '']);
    await benchClient().resource<KubeObject>(replicaSetResource).create(replicaSet('mem', 0), { namespace: ns });
    let previous: HeapReport | undefined;
    for (const n of sizes.memory) {
      log(`memory: ${n} pods`);
      await benchClient().resource<KubeObject>(replicaSetResource).patch(ns, 'mem', mergePatch({ spec: { replicas: n } }));
      await waitReady(ns, n, 60_000 + n * 100);
      const r = await measure(ns, n);
      const marginal = previous ? (r.heapUsed - previous.heapUsed) / (r.pods - previous.pods) : undefined;
      perSize.push({ pods: n, heapBytes: r.heapUsed, bytesPerPod: (r.heapUsed - base.heapUsed) / n, marginalBytesPerPod: marginal, jsonBytesPerPod: r.avgJsonBytes });
      rows.push([
        n,
        mib(r.heapUsed),
        mib(r.heapUsed - base.heapUsed),
        fixed((r.heapUsed - base.heapUsed) / n / 1024, 1),
        marginal === undefined ? '' : fixed(marginal / 1024, 1),
        fixed(r.avgJsonBytes / 1024, 2),
      ]);
      previous = r;
    }
  });
  notes.push(
    'The pods are a ReplicaSet\'s (ownerReference, pod-template-hash label), Running and Ready with the simulated kubelet\'s status; a CloneSet\'s pods carry a few more labels and a readiness gate, so they are slightly larger.',
  );
  return {
    title: 'Memory per cached pod',
    method: [
      'A fresh Node process (`--expose-gc`) creates the CloneSet controller on one namespace (pods, PVCs, ControllerRevisions, CloneSets and the cluster\'s nodes cached, with the controller\'s indexes), waits until its pod cache holds N pods, runs GC four times and reads `process.memoryUsage().heapUsed`.',
      'Per pod: (heap − heap of the same process on the empty namespace) / N; marginal: the heap difference between two sizes divided by the pod difference, which cancels fixed costs.',
      'JSON size: the average `JSON.stringify` length of a cached pod, for scale.',
    ].join(' '),
    headers: ['pods cached', 'heap used (MiB)', 'heap over baseline (MiB)', 'KiB / pod', 'marginal KiB / pod', 'JSON KiB / pod'],
    rows,
    notes,
    data: {
      // The headline numbers are the largest size's: fixed costs weigh least there.
      memory: {
        parameters: { sizes: sizes.memory },
        baselineHeapBytes,
        bytesPerPod: perSize.at(-1)?.bytesPerPod,
        marginalBytesPerPod: perSize.at(-1)?.marginalBytesPerPod,
        jsonBytesPerPod: perSize.at(-1)?.jsonBytesPerPod,
        perSize,
      },
    },
  };
}
