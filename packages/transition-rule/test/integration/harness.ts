// Runs the PodTransitionRule controller and its StageGate in-process against the local cluster,
// scoped to one namespace, and puts pods into a stage by labelling them as the lifecycle webhook
// would (no lifecycle controller is needed to test the rules).
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestNamespace, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { Manager, createLogger, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import type { PodTransitionRule } from '@cloneset-suite/api-types';
import { Registry } from 'prom-client';
import { createTransitionRuleController, type TransitionRuleControllerOptions } from '../../src/reconciler/controller.ts';
import { createTransitionRuleStageGate, type StageGate } from '../../src/reconciler/stage-gate.ts';
import { TestWebhookServer } from '../support/webhook-server.ts';

export async function installCrds(): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', path.join(repoRoot, 'crds')]);
  await kubectl(['wait', '--for=condition=Established', 'crd/podtransitionrules.apps.kusionstack.io', '--timeout=60s']);
}

export interface Running {
  gate: StageGate;
  /** Doorbell rings (pod names) with the time they rang. */
  rings: { pod: string; atMs: number }[];
  /** Mutating API requests the controller made so far. */
  writes: () => Promise<number>;
  stop: () => Promise<void>;
}

export function startController(namespace: string, options: Omit<TransitionRuleControllerOptions, 'namespace'> = {}): Running {
  const kubeConfig = loadKubeConfig(testKubeconfigPath());
  const registry = new Registry();
  const manager = new Manager({
    kubeConfig,
    qps: 200,
    burst: 400,
    registry,
    logger: createLogger({ level: (process.env.TEST_LOG_LEVEL as 'debug' | undefined) ?? 'warn', base: { test: namespace } }),
  });
  // The test webhook servers listen on 127.0.0.1: loopback is refused unless allowed.
  createTransitionRuleController(manager, { namespace, maxConcurrentReconciles: 2, ...options, webhook: { allowAddresses: ['loopback'], ...options.webhook } });
  const gate = createTransitionRuleStageGate(manager, { namespace });
  const rings: Running['rings'] = [];
  gate.onDecisionChange((_ns, pod) => rings.push({ pod, atMs: Date.now() }));
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  return {
    gate,
    rings,
    writes: async () => {
      const metric = await registry.getSingleMetric('rest_client_requests_total')?.get();
      return (metric?.values ?? []).filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method))).reduce((sum, v) => sum + v.value, 0);
    },
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

const NANOS = 1_000_000n;

export interface PodSpec {
  name: string;
  stage?: 'PreCheck' | 'PostCheck';
  /** Stage entry (ms since epoch), for the quota order. */
  enteredAtMs?: number;
  available?: boolean;
  labels?: Record<string, string>;
}

/** Lifecycle labels of a pod in `stage` for lifecycle id `x`, as the lifecycle webhook writes them. */
export function stageLabels(stage: 'PreCheck' | 'PostCheck', atMs = Date.now()): Record<string, string> {
  const ts = String(BigInt(atMs) * NANOS);
  return stage === 'PreCheck'
    ? { 'operating.podopslifecycle.kusionstack.io/x': ts, 'operation-type.podopslifecycle.kusionstack.io/x': 'update', 'pre-check.podopslifecycle.kusionstack.io/x': ts }
    : { 'operated.podopslifecycle.kusionstack.io/x': ts, 'done-operation-type.podopslifecycle.kusionstack.io/x': 'update', 'post-check.podopslifecycle.kusionstack.io/x': ts };
}

export function podManifest(spec: PodSpec): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: spec.name,
      labels: {
        app: 'web',
        'kusionstack.io/control': 'true',
        ...(spec.available ?? true ? { 'podopslifecycle.kusionstack.io/service-available': '1' } : {}),
        ...(spec.stage ? stageLabels(spec.stage, spec.enteredAtMs) : {}),
        ...(spec.labels ?? {}),
      },
    },
    spec: { containers: [{ name: 'c', image: 'registry.example/app:v1' }] },
  };
}

export async function createPods(namespace: string, pods: PodSpec[]): Promise<void> {
  await kubectl(['create', '-n', namespace, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods.map(podManifest) }));
}

export async function applyRule(namespace: string, rule: { name: string; spec: PodTransitionRule['spec'] }): Promise<void> {
  const manifest = { apiVersion: 'apps.kusionstack.io/v1alpha1', kind: 'PodTransitionRule', metadata: { name: rule.name }, spec: rule.spec };
  await kubectl(['apply', '-n', namespace, '-f', '-'], JSON.stringify(manifest));
}

export interface Suite {
  /** The suite's loopback webhook server (listening once beforeAll ran). */
  readonly server: TestWebhookServer;
  /** A fresh namespace with a controller scoped to it; both go after the test. */
  setup: (prefix: string, timeoutMs?: number) => Promise<{ ns: string; ctl: Running }>;
  /** Runs after the test, before the namespace and controller go. */
  onCleanup: (cleanup: () => Promise<void>) => void;
  /** Takes a cleanup back (the test did it itself). */
  dropCleanup: (cleanup: () => Promise<void>) => void;
}

/** Registers the suite's hooks: CRDs and the webhook server before all, cleanups after each test. */
export function clusterSuite(): Suite {
  const server = new TestWebhookServer();
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    await installCrds();
    await server.listen();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    server,
    setup: async (prefix, timeoutMs = 3_000) => {
      const ns = await createTestNamespace(prefix);
      const ctl = startController(ns.name, { webhook: { timeoutMs } });
      cleanups.push(ns.remove, ctl.stop);
      return { ns: ns.name, ctl };
    },
    onCleanup: (c) => void cleanups.push(c),
    dropCleanup: (c) => void cleanups.splice(cleanups.indexOf(c), 1),
  };
}
