// Runs the CloneSet controller in-process against the cluster, scoped to one namespace, and
// counts the API writes it makes (a settled CloneSet must cause none).
import path from 'node:path';
import { createTestNamespace, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { Manager, createLogger, loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { Registry } from 'prom-client';
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
  stop: () => Promise<void>;
}

export function startController(namespace: string, options: Omit<CloneSetControllerOptions, 'namespace'> = {}): RunningController {
  const registry = new Registry();
  const manager = new Manager({
    kubeConfig: loadKubeConfig(testKubeconfigPath()),
    qps: 200,
    burst: 400,
    registry,
    logger: createLogger({ level: (process.env.TEST_LOG_LEVEL as 'debug' | undefined) ?? 'warn', base: { test: namespace } }),
  });
  createCloneSetController(manager, { namespace, maxConcurrentReconciles: 2, ...options });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  return {
    namespace,
    registry,
    writes: async () => {
      const metric = await registry.getSingleMetric('rest_client_requests_total')?.get();
      return (metric?.values ?? [])
        .filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
        .reduce((sum, v) => sum + v.value, 0);
    },
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

export async function withNamespace(prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  return createTestNamespace(prefix);
}
