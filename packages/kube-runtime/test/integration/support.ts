// Shared helpers for the cluster suites: the kubeconfig contract, clients, throwaway namespaces.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeClient } from '../../src/client/client.ts';
import { isNotFound } from '../../src/client/errors.ts';
import { Resources } from '../../src/client/gvr.ts';
import type { Transport } from '../../src/client/transport.ts';
import { KubeConfigTransport, loadKubeConfig } from '../../src/client/transport.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { createMetrics, type RuntimeMetrics } from '../../src/metrics.ts';

export function kubeconfigPath(): string {
  const p =
    process.env.E2E_KUBECONFIG_RESOLVED ??
    process.env.E2E_KUBECONFIG ??
    fileURLToPath(new URL('../../../../.cluster/kubeconfig', import.meta.url));
  if (!existsSync(p)) throw new Error(`no kubeconfig at ${p}: is the local cluster up?`);
  return p;
}

export function kubeTransport(): Transport {
  return new KubeConfigTransport(loadKubeConfig(kubeconfigPath()), 'kube-runtime-integration');
}

/** A client with a generous rate limit (tests create thousands of objects). */
export function newClient(options: { transport?: Transport; metrics?: RuntimeMetrics } = {}): KubeClient {
  return new KubeClient({
    transport: options.transport ?? kubeTransport(),
    qps: 500,
    burst: 1000,
    metrics: options.metrics ?? createMetrics(),
  });
}

export async function createNamespace(client: KubeClient, prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  const namespaces = client.resource<KubeObject>(Resources.namespaces);
  await namespaces.create({ metadata: { name, labels: { 'cloneset-suite.test/suite': 'kube-runtime' } } });
  return {
    name,
    remove: async () => {
      await namespaces.delete(undefined, name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    },
  };
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000, stepMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Runs tasks with at most `limit` in flight. */
export async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
