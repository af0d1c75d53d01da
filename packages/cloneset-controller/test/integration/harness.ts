// Runs the CloneSet controller in-process against the cluster, scoped to one namespace, and
// counts the API writes it makes (a settled CloneSet must cause none).
import path from 'node:path';
import { createTestNamespace, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeConfigTransport, Manager, createLogger, loadKubeConfig, type HttpRequest, type HttpResponse, type Transport } from '@cloneset-suite/kube-runtime';
import { Registry } from 'prom-client';
import { afterAll, beforeAll } from 'vitest';
import { createCloneSetController, type CloneSetControllerOptions } from '../../src/reconciler/controller.ts';

export async function installCrds(): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', path.join(repoRoot, 'crds')]);
  await kubectl(['wait', '--for=condition=Established', 'crd/clonesets.apps.kruise.io', '--timeout=60s']);
}

export interface RunningController {
  namespace: string;
  registry: Registry;
  /** Mutating requests (POST/PUT/PATCH/DELETE) the controller made so far. */
  writes: () => Promise<number>;
  /** Every mutating request the controller sent so far, in order, with its HTTP status. */
  requests: () => readonly RecordedRequest[];
  stop: () => Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** API path, e.g. /api/v1/namespaces/ns/pods/name/status. */
  path: string;
  status: number;
  /** When the request was sent and when its response arrived (ms since the epoch). */
  startMs: number;
  atMs: number;
}

/** Whether a recorded request targets a pod (or a pod subresource such as status). */
export const isPodWrite = (r: RecordedRequest): boolean => /\/api\/v1\/namespaces\/[^/]+\/pods(\/|$)/.test(r.path);

/** Runs before a request of the controller is sent: a test's way to race it with another writer. */
export type BeforeSend = (req: HttpRequest) => Promise<void>;

/** Passes requests to the kubeconfig transport and records the mutating ones. */
class RecordingTransport implements Transport {
  readonly host: string;
  readonly log: RecordedRequest[] = [];
  private readonly inner: Transport;
  private readonly beforeSend: BeforeSend | undefined;
  constructor(inner: Transport, beforeSend?: BeforeSend) {
    this.inner = inner;
    this.host = inner.host;
    this.beforeSend = beforeSend;
  }
  async send(req: HttpRequest): Promise<HttpResponse> {
    await this.beforeSend?.(req);
    // Sub-millisecond clock: requests of one concurrent batch must be seen to overlap.
    const now = (): number => performance.timeOrigin + performance.now();
    const startMs = now();
    const res = await this.inner.send(req);
    if (req.method !== 'GET') this.log.push({ method: req.method, path: req.path, status: res.status, startMs, atMs: now() });
    return res;
  }
}

/** The controllers started per namespace and not stopped yet: a suite's teardown stops them all, restarts included. */
const runningIn = new Map<string, Set<RunningController>>();

export function startController(namespace: string, options: Omit<CloneSetControllerOptions, 'namespace'> = {}, beforeSend?: BeforeSend): RunningController {
  const registry = new Registry();
  const kubeConfig = loadKubeConfig(testKubeconfigPath());
  const transport = new RecordingTransport(new KubeConfigTransport(kubeConfig), beforeSend);
  const manager = new Manager({
    kubeConfig,
    transport,
    qps: 200,
    burst: 400,
    registry,
    logger: createLogger({ level: (process.env.TEST_LOG_LEVEL as 'debug' | undefined) ?? 'warn', base: { test: namespace } }),
  });
  createCloneSetController(manager, { namespace, maxConcurrentReconciles: 2, ...options });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const running: RunningController = {
    namespace,
    registry,
    writes: async () => {
      const metric = await registry.getSingleMetric('rest_client_requests_total')?.get();
      return (metric?.values ?? [])
        .filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
        .reduce((sum, v) => sum + v.value, 0);
    },
    requests: () => [...transport.log],
    stop: async () => {
      abort.abort();
      await done;
      runningIn.get(namespace)?.delete(running);
    },
  };
  if (!runningIn.has(namespace)) runningIn.set(namespace, new Set());
  runningIn.get(namespace)!.add(running);
  return running;
}

export async function withNamespace(prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  return createTestNamespace(prefix);
}

/** What a suite's fixture hands it once set up. */
export interface SuiteController {
  ns: string;
  controller: RunningController;
}

export interface SuiteSetup {
  controller?: Omit<CloneSetControllerOptions, 'namespace'>;
  /** Runs in the new namespace before the controller starts (a quota it must meet, say). */
  prepare?: (ns: string) => Promise<void>;
  beforeSend?: BeforeSend;
}

/**
 * The setup most suites share, registered in the calling describe (or file): before its tests,
 * the CRDs, a fresh namespace named after `prefix` and the controller scoped to it; after them,
 * every controller started in that namespace stopped (a test's restarts included), then the
 * namespace removed. `receive` gets both once they exist.
 */
export function controllerInNamespace(prefix: string, receive: (suite: SuiteController) => void, setup: SuiteSetup = {}): void {
  let namespace: { name: string; remove: () => Promise<void> } | undefined;
  beforeAll(async () => {
    await installCrds();
    namespace = await withNamespace(prefix);
    await setup.prepare?.(namespace.name);
    receive({ ns: namespace.name, controller: startController(namespace.name, setup.controller, setup.beforeSend) });
  });
  afterAll(async () => {
    if (!namespace) return;
    for (const c of [...(runningIn.get(namespace.name) ?? [])]) await c.stop();
    await namespace.remove();
  });
}
