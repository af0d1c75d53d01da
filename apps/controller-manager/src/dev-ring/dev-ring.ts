// `npm start -- --shards=N`: the local cluster, the sharder of kubernetes-controller-sharding (built
// once from a source the user gives, see packages/local-cluster/scripts/build-sharder.sh) and N
// controller-managers as shards of the ControllerRing `cloneset-suite`, each its own process on its
// own ports, their admission webhooks behind one loopback address (as a Service would be). Other
// arguments are every manager's flags. A shard that exits on its own is started again, as its
// Deployment would. Ctrl-C stops the managers (each releases its Lease) and
// then the sharder; the cluster keeps running.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { ensureSharder, freePort, kubeconfigPath, kubectl, repoRoot, startCluster } from '@cloneset-suite/local-cluster';
import { planBundle } from '../certs/bundle.ts';
import { ConfigError, loadConfig } from '../config/load.ts';
import { ensureNamespace, installCrds, installWebhookConfigurations, urlModeConfigurations } from '../local-install.ts';
import { startTcpFront } from '../tcp-front.ts';
import { LOCAL_RING, controllerRing, sharderConfig } from './ring-objects.ts';
export { splitShardsArg } from './shards-arg.ts';

const SYSTEM_NAMESPACE = 'cloneset-suite-system';
/** The sharder's leader-election namespace (its default). */
const SHARDER_NAMESPACE = 'sharding-system';
/** controller-runtime's default webhook port, which SharderConfig does not change. */
const SHARDER_WEBHOOK_PORT = 9443;
const DAY_MS = 86_400_000;

const mainEntry = path.join(repoRoot, 'apps/controller-manager/src/main.ts');
const run = (args: readonly string[], input?: string): Promise<string> => kubectl(args, input, kubeconfigPath);
const say = (line: string): void => void process.stderr.write(`[start] ${line}\n`);

function fail(message: string, code: number): never {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(code);
}

/** A child whose output lines carry `[name]`, so the interleaved output says who wrote what. */
function spawnLabelled(name: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const child = spawn(command, [...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stderr.write(`[${name}] ${line}\n`);
    });
  }
  return child;
}

/** The sharder's serving pair for 127.0.0.1 from a CA made for it (the manager's own bundle planner), in `dir`; returns the CA. */
async function sharderCertificates(dir: string): Promise<string> {
  const { bundle } = await planBundle(undefined, { hosts: ['127.0.0.1', 'localhost'], servingValidityMs: 365 * DAY_MS, now: new Date() });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'tls.crt'), bundle.tlsCert);
  writeFileSync(path.join(dir, 'tls.key'), bundle.tlsKey, { mode: 0o600 });
  return bundle.caCert;
}

export async function runRing(shards: number, managerArgs: readonly string[]): Promise<number> {
  // One address for every shard's webhooks, as the chart's Service is one for every replica.
  const frontPort = await freePort();
  const urlBase = `https://127.0.0.1:${frontPort}`;
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
  await run(['apply', '--server-side', '--force-conflicts', '-f', build.crdPath]);
  await run(['wait', '--for=condition=Established', '--timeout=60s', 'crd/controllerrings.sharding.timebertt.dev']);
  await ensureNamespace(run, SYSTEM_NAMESPACE);
  await ensureNamespace(run, SHARDER_NAMESPACE);
  await run(['apply', '-f', '-'], stringify(controllerRing(LOCAL_RING)));

  const sharderDir = path.join(path.dirname(kubeconfigPath), 'sharder');
  const caPem = await sharderCertificates(sharderDir);
  const sharderHealth = await freePort();
  const configPath = path.join(sharderDir, 'config.yaml');
  writeFileSync(configPath, stringify(sharderConfig({ certDir: sharderDir, caPem, webhookPort: SHARDER_WEBHOOK_PORT, healthPort: sharderHealth, qps: 100, burst: 200 })));
  const children: ChildProcess[] = [];
  const sharder = spawnLabelled('sharder', build.binary, [`--config=${configPath}`], { ...process.env, KUBECONFIG: kubeconfigPath, DISABLE_HTTP2: 'true' });

  const shardPorts = await Promise.all(Array.from({ length: shards }, async () => ({ webhook: await freePort(), metrics: await freePort(), health: await freePort() })));
  const front = await startTcpFront(frontPort, shardPorts.map((p) => p.webhook));
  await installWebhookConfigurations(run, urlModeConfigurations(loaded.config));

  const shardArgs = (i: number): string[] => [
    mainEntry,
    '--kubeconfig', kubeconfigPath,
    `--controller-ring=${LOCAL_RING}`,
    `--shard-name=shard-${i}`,
    '--leader-election-namespace', SYSTEM_NAMESPACE,
    '--webhook-host', '127.0.0.1',
    `--webhook-port=${shardPorts[i]!.webhook}`,
    `--webhook-url-base=${urlBase}`,
    `--metrics-bind-address=127.0.0.1:${shardPorts[i]!.metrics}`,
    `--health-probe-bind-address=127.0.0.1:${shardPorts[i]!.health}`,
    '--transition-rule-webhook-allow-addresses=loopback',
    ...managerArgs,
  ];
  let stopping = false;
  // A shard that exits on its own (killed, or losing its Lease, when it exits 1 as a leader does)
  // is started again a second later, as its Deployment would: the ring keeps running.
  const startShard = (i: number): void => {
    const child = spawnLabelled(`shard-${i}`, process.execPath, shardArgs(i));
    children[i] = child;
    child.once('exit', (code, signal) => {
      if (stopping) return;
      say(`shard-${i} exited (${signal ?? `code ${code}`}); starting it again in 1 s`);
      setTimeout(() => !stopping && startShard(i), 1_000);
    });
  };
  shardPorts.forEach((ports, i) => {
    startShard(i);
    say(`shard-${i}: metrics http://127.0.0.1:${ports.metrics}/metrics, probes http://127.0.0.1:${ports.health}/readyz`);
  });
  say(`sharder: webhook https://127.0.0.1:${SHARDER_WEBHOOK_PORT}, probes http://127.0.0.1:${sharderHealth}/readyz`);
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

  const exited = (child: ChildProcess): Promise<number> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve(child.exitCode ?? 1) : new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map(exited));
    // The sharder last: it moves a stopping shard's objects to the shards still running.
    sharder.kill('SIGTERM');
    await exited(sharder);
    await front.close();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop().then(() => process.exit(0)));
  const code = await exited(sharder);
  if (stopping) return 0;
  say(`the sharder exited with ${code}; stopping the shards`);
  await stop();
  return code === 0 ? 1 : code;
}
