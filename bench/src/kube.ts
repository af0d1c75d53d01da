// The bench's own API access: one unthrottled client, the CRDs, throwaway namespaces.
import path from 'node:path';
import { createTestNamespace, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, Resources, isNotFound, loadKubeConfig, type GroupVersionResource } from '@cloneset-suite/kube-runtime';

export const cloneSetResource: GroupVersionResource = {
  group: 'apps.kruise.io',
  version: 'v1alpha1',
  resource: 'clonesets',
  kind: 'CloneSet',
  namespaced: true,
};
export const replicaSetResource: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true };
export const { pods: podResource, deployments: deploymentResource, controllerRevisions: revisionResource, coreEvents: eventResource } = Resources;

let client: KubeClient | undefined;

/** The bench's client (observers, workload writes); the kube-controller-manager here is unthrottled too. */
export function benchClient(): KubeClient {
  client ??= new KubeClient({ kubeConfig: loadKubeConfig(testKubeconfigPath()), qps: 5000, burst: 10000, userAgent: 'cloneset-suite-bench' });
  return client;
}

export async function installCrds(): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager=cloneset-suite-bench', '-f', path.join(repoRoot, 'crds')]);
  await kubectl(['wait', '--for=condition=Established', 'crd/clonesets.apps.kruise.io', '--timeout=60s']);
}

/**
 * Runs `body` in a fresh namespace and deletes it afterwards. The namespace controller removes
 * the pods in the background, which the next scenario would compete with, so by default this
 * waits up to `goneTimeoutMs` for the namespace to be gone (`waitGone: false` does not wait).
 */
export async function inNamespace<T>(prefix: string, body: (ns: string) => Promise<T>, { waitGone = true, goneTimeoutMs = 180_000 } = {}): Promise<T> {
  const ns = await createTestNamespace(prefix);
  try {
    return await body(ns.name);
  } finally {
    await ns.remove();
    if (waitGone) await waitNamespaceGone(ns.name, goneTimeoutMs);
  }
}

/** Polls until the namespace is gone or `timeoutMs` passed (then returns all the same: the caller goes on). */
async function waitNamespaceGone(name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await benchClient().resource(Resources.namespaces).get(undefined, name);
    } catch (err) {
      if (isNotFound(err)) return;
    }
    await sleep(1_000);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds on a monotonic clock. */
export const now = (): number => performance.now();
