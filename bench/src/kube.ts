// The bench's own API access: one unthrottled client, the CRDs, throwaway namespaces.
import path from 'node:path';
import { createTestNamespace, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { KubeClient, Resources, loadKubeConfig, type GroupVersionResource } from '@cloneset-suite/kube-runtime';

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
 * Runs `body` in a fresh namespace and deletes it afterwards (without waiting: the namespace
 * controller removes the pods in the background, which the next scenario then competes with,
 * so `waitGone` waits for it when a scenario needs a quiet cluster).
 */
export async function inNamespace<T>(prefix: string, body: (ns: string) => Promise<T>, { waitGone = true } = {}): Promise<T> {
  const ns = await createTestNamespace(prefix);
  try {
    return await body(ns.name);
  } finally {
    await ns.remove();
    if (waitGone) await kubectl(['wait', '--for=delete', `namespace/${ns.name}`, '--timeout=180s']).catch(() => undefined);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds on a monotonic clock. */
export const now = (): number => performance.now();
