// Scenario 5: admission webhook latency. Direct AdmissionReview POSTs over TLS on loopback to
// the controller-manager's webhook server (sequential, one kept-alive connection, bounded
// count), and the same CloneSet as a server-side dry-run create through the apiserver (which
// calls both webhooks) next to a Deployment dry-run create (no webhook) for the apiserver's
// own share. Then the pod mutating webhook under load (./load.ts): it sits on every write of a
// controlled pod, status writes included.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { KUSION_CONTROL_LABEL, KUSION_CONTROL_VALUE, POL_SERVICE_READY_GATE } from '@cloneset-suite/api-types';
import { Agent, request } from 'node:https';
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, deploymentResource, inNamespace, now } from '../kube.ts';
import { fixed, type BenchSizes, type Cell, type Section } from '../result.ts';
import { LoadClient, throughput, type LoadResult } from '../load.ts';
import { cpuNeededAt, fairCpuShare, serverWindow, type ServerWindow } from '../server-window.ts';
import { medianIndex, sampleStats } from '../samples.ts';
import { summarize, type LatencySummary } from '../stats.ts';
import { startWebhookServer } from '../webhook-server.ts';
import { windowCpu, windowCpuNote, windowCpuNow, type WindowCpu } from '../window-cpu.ts';
import { IMAGE_V1, cloneSet, deployment, podTemplate } from '../workloads.ts';

type Log = (line: string) => void;

/** One paced window of /mutate-pod load: the client's latencies and the server's view of it. */
interface PacedWindow {
  result: LoadResult;
  server: ServerWindow;
  /** The 1-minute load average right after it. */
  loadAverage: number;
  p99Ms: number;
  /** Where the machine's CPU went during it. */
  cpu: WindowCpu;
}

const WARMUP = 20;
const POD_MUTATE_PATH = '/mutate-pod';

interface ReviewResponse {
  response?: { allowed?: boolean; status?: { message?: string } };
}

function post(url: string, body: string, agent: Agent): Promise<ReviewResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReviewResponse);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function review(namespace: string, object: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: 'apps.kruise.io', version: 'v1alpha1', kind: 'CloneSet' },
      resource: { group: 'apps.kruise.io', version: 'v1alpha1', resource: 'clonesets' },
      namespace,
      name: 'app',
      operation: 'CREATE',
      userInfo: { username: 'bench' },
      object,
      dryRun: false,
    },
  });
}

async function timeLoop(count: number, call: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = now();
    await call();
    samples.push(now() - t0);
  }
  return samples;
}

const row = (what: string, s: LatencySummary, rate = ''): Cell[] => [what, s.count, rate, fixed(s.p50), fixed(s.p95), fixed(s.p99), fixed(s.max)];

/** A controlled pod's CREATE and its later /status UPDATE (Ready), as the apiserver sends them. */
function podReviews(namespace: string): string[] {
  const template = podTemplate('app', IMAGE_V1) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> }; spec: Record<string, unknown> };
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app-x7k2p', namespace, uid: randomUUID(), labels: { ...template.metadata.labels, [KUSION_CONTROL_LABEL]: KUSION_CONTROL_VALUE }, annotations: template.metadata.annotations },
    spec: { ...template.spec, nodeName: 'kwok-node-0', readinessGates: [{ conditionType: POL_SERVICE_READY_GATE }] },
    status: { phase: 'Pending' },
  };
  const ready = {
    ...pod,
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: POL_SERVICE_READY_GATE, status: 'True' },
      ],
    },
  };
  const resource = { group: '', version: 'v1', resource: 'pods' };
  const kind = { group: '', version: 'v1', kind: 'Pod' };
  const base = { uid: randomUUID(), kind, resource, namespace, name: pod.metadata.name, userInfo: { username: 'system:node:kwok-node-0' }, dryRun: false };
  return [
    { ...base, operation: 'CREATE', object: pod },
    { ...base, operation: 'UPDATE', subResource: 'status', object: ready, oldObject: pod },
  ].map((request) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request }));
}

/** The server's own account of a load window (its /metrics), beside the client's latencies. */
const serverNote = (what: string, w: ServerWindow): string =>
  `Server side, ${what} (from its /metrics before and after): ${w.requests} requests, ${fixed(w.handledWithin5msShare * 100, 1)}% handled within 5 ms (controller_runtime_webhook_latency_seconds: route handler only, after TLS, HTTP parsing and body read), mean ${fixed(w.meanHandlerMs, 3)} ms; ${fixed(w.cpuUsPerRequest, 0)} µs of process CPU per request; event-loop delay p99 ${fixed(w.loopDelayP99Ms)} ms, max ${fixed(w.loopDelayMaxMs)} ms; GC ${w.gc.minor.count} scavenges (${fixed(w.gc.minor.ms)} ms), ${w.gc.major.count} mark-compacts (${fixed(w.gc.major.ms)} ms), ${w.gc.incremental.count} incremental steps (${fixed(w.gc.incremental.ms)} ms).`;

const loadNote = (what: string, r: LoadResult): string | undefined => (r.errors ? `${what}: ${r.errors} requests failed (first: ${r.firstError}).` : undefined);

export async function webhookScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  return inNamespace('bench-webhook', async (ns) => {
    log('webhook: starting the controller-manager (webhooks only)');
    const server = await startWebhookServer(ns);
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    try {
      const raw = { ...cloneSet({ name: 'app', replicas: 3, image: IMAGE_V1 }), metadata: { name: 'app', namespace: ns } };
      const cloneSets = benchClient().resource<KubeObject>(cloneSetResource);
      const deployments = benchClient().resource<KubeObject>(deploymentResource);
      // What the validating webhook sees in practice: the object after defaulting.
      const defaulted = await cloneSets.create(raw, { namespace: ns, dryRun: true });
      const check = (what: string) => (r: ReviewResponse) => {
        if (r.response?.allowed !== true) throw new Error(`${what} refused the sample CloneSet: ${r.response?.status?.message ?? JSON.stringify(r)}`);
      };
      log(`webhook: ${sizes.webhookRequests} mutate + ${sizes.webhookRequests} validate requests`);
      const mutate = await timeLoop(sizes.webhookRequests, () =>
        post(`${server.urlBase}/mutate-apps-kruise-io-v1alpha1-cloneset`, review(ns, raw), agent).then(check('mutate')),
      );
      const validate = await timeLoop(sizes.webhookRequests, () =>
        post(`${server.urlBase}/validate-apps-kruise-io-v1alpha1-cloneset`, review(ns, defaulted), agent).then(check('validate')),
      );
      log(`webhook: ${sizes.apiserverRequests} dry-run creates through the apiserver`);
      const viaApiserver = await timeLoop(sizes.apiserverRequests, () => cloneSets.create(raw, { namespace: ns, dryRun: true }).then(() => undefined));
      const dep = { ...deployment({ name: 'app', replicas: 3, image: IMAGE_V1 }), metadata: { name: 'app', namespace: ns } };
      const baseline = await timeLoop(sizes.apiserverRequests, () => deployments.create(dep, { namespace: ns, dryRun: true }).then(() => undefined));
      const load = sizes.podWebhook;
      const pods = new LoadClient({ url: `${server.urlBase}${POD_MUTATE_PATH}`, ca: server.ca, connections: load.connections, bodies: podReviews(ns), expected: { status: 200, bodyIncludes: '"allowed":true' } });
      // Paced windows, one after another, `repeats` of them like every timed scenario: one stall of
      // the shared machine moves a single window's p99, so the median window is the headline.
      const windows: PacedWindow[] = [];
      let saturated: LoadResult;
      let saturatedServer: ServerWindow;
      try {
        await pods.warmUp(WARMUP);
        for (let i = 0; i < sizes.repeats; i++) {
          log(`webhook: /mutate-pod paced at ${load.paceRps} req/s for ${load.paceSeconds} s over ${load.connections} connections (window ${i + 1}/${sizes.repeats})`);
          const before = await server.metrics();
          const cpuBefore = await windowCpuNow();
          const result = await pods.paced(load.paceRps, load.paceSeconds);
          const cpuAfter = await windowCpuNow();
          const sw = serverWindow(before, await server.metrics(), POD_MUTATE_PATH);
          windows.push({ result, server: sw, loadAverage: os.loadavg()[0]!, p99Ms: summarize(result.latenciesMs).p99, cpu: windowCpu(cpuBefore, cpuAfter, sw.cpuSeconds) });
        }
        log(`webhook: /mutate-pod at saturation (at most ${load.saturationRequests} requests or ${load.saturationSeconds} s)`);
        const beforeSaturated = await server.metrics();
        saturated = await pods.saturated(load.saturationRequests, load.saturationSeconds);
        saturatedServer = serverWindow(beforeSaturated, await server.metrics(), POD_MUTATE_PATH);
      } finally {
        await pods.close();
      }
      const p99s = sampleStats(windows.map((w) => w.p99Ms));
      const { result: paced, server: pacedServer, loadAverage: pacedLoad, cpu: pacedCpu } = windows[medianIndex(p99s.samples)]!;
      const p = summarize(paced.latenciesMs);
      const sat = summarize(saturated.latenciesMs);
      const m = summarize(mutate);
      const v = summarize(validate);
      const a = summarize(viaApiserver);
      const b = summarize(baseline);
      return {
        title: 'Admission webhook latency (ms)',
        method: [
          'The controller-manager runs as its own process (webhooks only, `--controllers=-cloneset`, URL mode on 127.0.0.1, self-managed certificate).',
          `Direct: AdmissionReview v1 CREATE requests for one CloneSet POSTed one after another over TLS on loopback, on one kept-alive connection (as the apiserver does), after ${WARMUP} warm-up requests;`,
          'the time is the client\'s, from sending to the parsed response (a JSON patch for mutate, allowed for validate).',
          'Through the apiserver: server-side dry-run creates of the same CloneSet (the apiserver calls both webhooks, also over TLS on loopback) next to dry-run creates of a Deployment, which no webhook sees: the difference is what the webhooks add to a CloneSet write.',
        ].join(' '),
        headers: ['request', 'count', 'req/s', 'p50', 'p95', 'p99', 'max'],
        rows: [
          row('CloneSet mutate (direct)', m),
          row('CloneSet validate (direct)', v),
          row('CloneSet dry-run create via apiserver (both webhooks)', a),
          row('Deployment dry-run create via apiserver (no webhook)', b),
          ...windows.map((w, i) => row(`/mutate-pod paced at ${load.paceRps} req/s, ${load.connections} connections, window ${i + 1}`, summarize(w.result.latenciesMs), fixed(throughput(w.result), 0))),
          row(`/mutate-pod at saturation, ${load.connections} connections`, sat, fixed(throughput(saturated), 0)),
        ],
        notes: [
          `Webhooks' share of a CloneSet create at p50: ${fixed(a.p50 - b.p50)} ms (CloneSet minus Deployment dry-run; CRD and built-in storage paths differ too).`,
          `/mutate-pod paced: p99 ${fixed(p99s.median)} ms, the median of ${windows.length} windows (${fixed(p99s.min)}–${fixed(p99s.max)} ms); the notes below describe the median window.`,
          `/mutate-pod: AdmissionReviews of a controlled pod (\`${KUSION_CONTROL_LABEL}: "${KUSION_CONTROL_VALUE}"\`), a CREATE and its /status UPDATE to Ready in turn, over ${load.connections} kept-alive TLS connections opened beforehand (${WARMUP} warm-up requests each). Paced: ${load.paceRps} req/s for ${load.paceSeconds} s, ${windows.length} windows one after another, open loop, each latency counted from when its request was due (a stall of the server shows as latency, not as a lower rate). Saturation: every connection sends its next request as soon as the previous one is answered, at most ${load.saturationRequests} requests or ${load.saturationSeconds} s; its req/s is the throughput at saturation.`,
          `The load generator runs in a worker thread of the bench process (an event loop of its own, nothing else on it) and writes prepared request bytes on raw kept-alive TLS connections, cutting the answers out by Content-Length; it still shares the ${os.availableParallelism()} CPUs with the webhook server and the cluster, so at saturation the throughput is a floor for the server alone. Its own event-loop delay (a stall counts as latency in an open-loop measurement): paced p99 ${fixed(paced.generatorDelayMs.p99)} ms, max ${fixed(paced.generatorDelayMs.max)} ms; saturation p99 ${fixed(saturated.generatorDelayMs.p99)} ms, max ${fixed(saturated.generatorDelayMs.max)} ms.`,
          serverNote('paced', pacedServer),
          `What the machine adds: at ${load.paceRps} req/s the server needs about ${fixed(cpuNeededAt(pacedServer, load.paceRps) * 100, 0)}% of one CPU (its CPU per request × the rate); with a 1-minute load average of ${fixed(pacedLoad)} on ${os.availableParallelism()} CPUs right after the paced window, a runnable thread gets about ${fixed(fairCpuShare(os.availableParallelism(), pacedLoad) * 100, 0)}% of one. Where it gets less than it needs, requests queue and the client's latencies grow while the handler times above stay short; the server's event-loop delay is the time it waited to run.`,
          windowCpuNote(pacedCpu, os.availableParallelism()),
          serverNote('saturation', saturatedServer),
          ...[loadNote('paced', paced), loadNote('saturation', saturated)].filter((n): n is string => n !== undefined),
        ],
        data: {
          webhook: {
            parameters: { ...load, cloneSetRequests: sizes.webhookRequests, apiserverRequests: sizes.apiserverRequests },
            podMutateP99Ms: p99s.median,
            podMutateP99MsSamples: p99s.samples,
            podMutateP50Ms: p.p50,
            podMutateMaxMs: p.max,
            podMutatePacedRps: throughput(paced),
            podMutateErrors: windows.reduce((sum, w) => sum + w.result.errors, 0) + saturated.errors,
            podMutateSaturationRps: throughput(saturated),
            podMutateSaturationP99Ms: sat.p99,
            podMutateGeneratorLoopDelayP99Ms: paced.generatorDelayMs.p99,
            podMutateServerWithin5msShare: pacedServer.handledWithin5msShare,
            podMutateServerCpuUsPerRequest: pacedServer.cpuUsPerRequest,
            podMutateServerCpuNeededShare: cpuNeededAt(pacedServer, load.paceRps),
            podMutatePacedLoadAverage: pacedLoad,
            podMutatePacedCpuSeconds: windows.map((w) => w.cpu),
            podMutateServerLoopDelayMaxMs: pacedServer.loopDelayMaxMs,
            podMutateServerGcMs: pacedServer.gc.minor.ms + pacedServer.gc.major.ms + pacedServer.gc.incremental.ms,
            cloneSetMutateP99Ms: m.p99,
            cloneSetValidateP99Ms: v.p99,
            cloneSetCreateViaApiserverP50Ms: a.p50,
            deploymentCreateViaApiserverP50Ms: b.p50,
          },
        },
      };
    } finally {
      agent.destroy();
      await server.stop();
    }
  });
}
