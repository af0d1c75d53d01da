// `npm start -- --shards=N`: the local cluster, the sharder of kubernetes-controller-sharding (built
// once from a source the user gives, see packages/local-cluster/scripts/build-sharder.sh) and N
// controller-managers as shards of the ControllerRing `cloneset-suite`, each its own process on its
// own ports, their admission webhooks behind one loopback address (as a Service would be). Other
// arguments are every manager's flags. A shard that exits on its own is started again, as its
// Deployment would. Ctrl-C stops the managers (each releases its Lease) and
// then the sharder; the cluster keeps running.
import path from 'node:path';
import { ensureSharder, kubeconfigPath, kubectl, repoRoot, startCluster } from '@cloneset-suite/local-cluster';
import { ConfigError, loadConfig } from '../config/load.ts';
import { ensureNamespace, installCrds, installWebhookConfigurations, urlModeConfigurations } from '../local-install.ts';
import { startTcpFront } from '../tcp-front.ts';
import { LOCAL_RING } from './ring-objects.ts';
import { SHARDER_WEBHOOK_PORT, installRing, startSharder } from './local-sharder.ts';
import { shardPorts, startShards } from './shards.ts';
export { splitShardsArg } from './shards-arg.ts';

const SYSTEM_NAMESPACE = 'cloneset-suite-system';

const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input, kubeconfigPath);
const say = (line: string): void => void process.stderr.write(`[start] ${line}\n`);

function fail(message: string, code: number): never {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(code);
}

export async function runRing(shards: number, managerArgs: readonly string[]): Promise<number> {
  // One address for every shard's webhooks, as the chart's Service is one for every replica.
  const ports = await shardPorts(shards);
  const urlBase = `https://127.0.0.1:${ports.front}`;
  const loaded = (() => {
    try {
      return loadConfig({ argv: ['--kubeconfig', kubeconfigPath, '--webhook-url-base', urlBase, ...managerArgs], knownControllers: [] });
    } catch (err) {
      if (err instanceof ConfigError) fail(err.message, 2);
      throw err;
    }
  })();
  if (loaded.kind !== 'config') fail('--help is not taken with --shards', 2);
  if (managerArgs.some((a) => a.startsWith('--kubeconfig') || a.startsWith('--controller-ring') || a.startsWith('--shard-name'))) {
    fail('--shards runs on the local cluster and names the ring and shards itself: drop --kubeconfig, --controller-ring and --shard-name', 2);
  }
  const build = await ensureSharder().catch((err: unknown) => fail((err as Error).message, 1));
  await startCluster();

  say(`installing the CRDs, the ControllerRing ${LOCAL_RING} and the sharder...`);
  await installCrds(run, path.join(repoRoot, 'crds'));
  await ensureNamespace(run, SYSTEM_NAMESPACE);
  await installRing(run, build, LOCAL_RING);
  const sharder = await startSharder(build, { dir: path.join(path.dirname(kubeconfigPath), 'sharder'), kubeconfig: kubeconfigPath });

  const front = await startTcpFront(ports.front, ports.shards.map((p) => p.webhook));
  await installWebhookConfigurations(run, urlModeConfigurations(loaded.config));
  const managers = startShards({ ring: LOCAL_RING, kubeconfig: kubeconfigPath, leaseNamespace: SYSTEM_NAMESPACE, ports, extraArgs: managerArgs, say });
  ports.shards.forEach((p, i) => say(`shard-${i}: metrics http://127.0.0.1:${p.metrics}/metrics, probes http://127.0.0.1:${p.health}/readyz`));
  say(`sharder: webhook https://127.0.0.1:${SHARDER_WEBHOOK_PORT}, probes http://127.0.0.1:${sharder.healthPort}/readyz`);
  process.stderr.write(
    [
      '',
      `${shards} shards of the ControllerRing ${LOCAL_RING} and its sharder run against the local cluster. In another shell:`,
      '',
      `  export KUBECONFIG=${path.relative(process.cwd(), kubeconfigPath) || kubeconfigPath}`,
      `  kubectl get controllerring ${LOCAL_RING}          # shards and available shards`,
      `  kubectl get leases -n ${SYSTEM_NAMESPACE} -l alpha.sharding.timebertt.dev/controllerring=${LOCAL_RING}`,
      `  kubectl get clonesets,pods -L shard.alpha.sharding.timebertt.dev/${LOCAL_RING}`,
      '',
      'Ctrl-C stops the shards (each releases its Lease) and then the sharder; the cluster keeps running.',
      '',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await Promise.all(managers.map((m) => m.stop()));
    // The sharder last: it moves a stopping shard's objects to the shards still running.
    await sharder.process.stop();
    await front.close();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop().then(() => process.exit(0)));
  const code = await sharder.process.exited();
  if (stopping) return 0;
  say(`the sharder exited with ${code}; stopping the shards`);
  await stop();
  return code === 0 ? 1 : code;
}
