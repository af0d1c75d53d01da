// The controller-manager the e2e suite talks to: on a cluster given by E2E_KUBECONFIG it is the
// one deployed there (Helm chart, kind workflow); on the local cluster the suite starts it the
// way a newcomer does, through `npm start`'s entry, on free ports and its own lease/webhook names.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { eventually, freePort, kubectl, repoRoot, usingExternalCluster } from '@cloneset-suite/local-cluster';

const NAME = 'cloneset-suite-e2e';


export interface E2EManager {
  stop(): Promise<void>;
  output(): string;
}

/** `namespace`: the local manager watches only it, so suites sharing the cluster are untouched. */
export async function ensureManager(namespace: string): Promise<E2EManager> {
  if (usingExternalCluster()) return { stop: () => Promise.resolve(), output: () => '' };
  const [metrics, probes, webhook] = [await freePort(), await freePort(), await freePort()];
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(repoRoot, 'apps/controller-manager/src/dev-start.ts'),
      `--namespace=${namespace}`,
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      `--health-probe-bind-address=127.0.0.1:${probes}`,
      `--webhook-port=${webhook}`,
      `--leader-election-id=${NAME}`,
      `--webhook-configuration-name=${NAME}`,
      `--webhook-secret-name=${NAME}-certs`,
      '--leader-election-lease-duration=6s',
      '--leader-election-renew-deadline=4s',
      '--leader-election-retry-period=1s',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  await eventually('the controller-manager ready', async () => (await fetch(`http://127.0.0.1:${probes}/readyz`).catch(() => undefined))?.status === 200, {
    timeoutMs: 120_000,
    intervalMs: 500,
  }).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- controller-manager output ---\n${out}`);
  });
  // Ready means certificates loaded; the apiserver sees the injected caBundle a moment later.
  await eventually('the webhooks admitting a CloneSet', async () => {
    await kubectl(['apply', '--dry-run=server', '-n', namespace, '-f', path.join(repoRoot, 'examples/cloneset.yaml')]);
    return true;
  }, { timeoutMs: 60_000, intervalMs: 500 });
  return {
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      // With no manager behind them, its webhooks (failurePolicy Fail) would refuse every CloneSet.
      await kubectl(['delete', 'mutatingwebhookconfiguration,validatingwebhookconfiguration', NAME, '--ignore-not-found']);
    },
  };
}
