// The controller-manager process serving /mutate-pod and /validate-pod in URL mode for one test
// namespace (the apiserver calls it on 127.0.0.1), and the clean-up that leaves nothing behind.
import path from 'node:path';
import { eventually, freePort, getJson, kubectl, repoRoot, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { loadConfig } from '../../src/config/load.ts';
import { installCrds, installWebhookConfigurations, urlModeConfigurations } from '../../src/local-install.ts';
import { spawnManager, type ManagerProcess } from './process.ts';

export interface PodWebhookManager {
  /** The running process; replace it with spawnManager(args) to restart the manager. */
  manager: ManagerProcess;
  args: string[];
  metricsPort: number;
  configurationName: string;
}

export function installSuiteCrds(): Promise<void> {
  return installCrds((a, input) => kubectl(a, input), path.join(repoRoot, 'crds'));
}

export async function startManagerWithPodWebhooks(namespace: string, controllers: readonly string[], configurationName: string): Promise<PodWebhookManager> {
  const webhookPort = await freePort();
  const metricsPort = await freePort();
  const args = [
    `--kubeconfig=${testKubeconfigPath()}`,
    `--namespace=${namespace}`,
    `--controllers=${controllers.join(',')}`,
    '--leader-elect=false',
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${await freePort()}`,
    '--webhook-host=127.0.0.1',
    `--webhook-port=${webhookPort}`,
    `--webhook-url-base=https://127.0.0.1:${webhookPort}`,
    `--webhook-configuration-name=${configurationName}`,
    `--webhook-secret-name=${configurationName}-certs`,
    `--leader-election-namespace=${namespace}`,
  ];
  const loaded = loadConfig({ argv: args, env: {}, knownControllers: [...controllers] });
  if (loaded.kind !== 'config') throw new Error('unexpected help');
  await installWebhookConfigurations(
    (a, input) => kubectl(a, input),
    urlModeConfigurations(loaded.config, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } }),
  );
  const manager = spawnManager(args);
  // Ready once the caBundle is injected: a controlled pod is admitted through both webhooks.
  await eventually('the pod webhooks answer', async () => {
    await kubectl(['apply', '--dry-run=server', '-n', namespace, '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', labels: { 'kusionstack.io/control': 'true' } }, spec: { containers: [{ name: 'c', image: 'x' }] } }));
    return true;
  }, { timeoutMs: 60_000 });
  return { manager, args, metricsPort, configurationName };
}

/** Stops the manager, removes the webhook configurations, then the namespace (protection finalizers would hold its pods). */
export async function stopManagerAndRemove(ns: { name: string; remove: () => Promise<void> } | undefined, handle: PodWebhookManager | undefined, beforeRemove?: () => Promise<void>): Promise<void> {
  if (handle?.manager.child.exitCode === null) {
    handle.manager.child.kill('SIGTERM');
    await handle.manager.exited;
  }
  if (handle) await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', handle.configurationName, '--ignore-not-found']).catch(() => undefined);
  if (!ns) return;
  await beforeRemove?.();
  const pods = await getJson<{ items: { metadata?: { name?: string; finalizers?: string[] } }[] }>(['pods', '-n', ns.name]).catch(() => undefined);
  for (const p of pods?.items ?? []) {
    if ((p.metadata?.finalizers ?? []).length > 0) {
      await kubectl(['patch', 'pod', p.metadata!.name!, '-n', ns.name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']).catch(() => undefined);
    }
  }
  await ns.remove();
}
