// Starts and stops the local control plane: kwokctl's binary runtime running the pinned
// kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok built from Go
// modules, plus the suite's own kwok Stages, zoned fake nodes and a default StorageClass.
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureBinaries } from './binaries.ts';
import { kwokConfiguration, type KwokConfigurationOptions } from './kwok-config.ts';
import { startRealNode, stopRealNode } from './real-node/real-node.ts';
import { nodeManifests } from './nodes.ts';
import { clusterDir, clusterName, kubeconfigPath, kwokWorkdir, pkiDirOf, stagesDir, usingExternalCluster, testKubeconfigPath } from './paths.ts';
import { processAlive } from './process-alive.ts';
import { run, sleep } from './run.ts';
import { storageClassManifest } from './storage.ts';

export interface StartClusterOptions {
  /** Number of fake nodes (spread over three zones). Default 6, or CLONESET_SUITE_NODES. */
  nodes?: number;
  /**
   * Also run a real node (kubelet, containerd, runc; root only) beside the fake ones, tainted so
   * only pods that tolerate it land there. Default false, or CLONESET_SUITE_REAL_NODE=1.
   */
  realNode?: boolean;
  /**
   * Admission plugins kube-apiserver runs besides its defaults (e.g. OwnerReferencesPermissionEnforcement).
   * Part of the cluster's configuration: a cluster created with other plugins is created again.
   */
  extraAdmissionPlugins?: readonly string[];
  /** Called with progress lines; defaults to stderr. */
  log?: (line: string) => void;
}

export interface ClusterHandle {
  kubeconfigPath: string;
  /** True when this call created or started the cluster (false when it was already running). */
  started: boolean;
}

const defaultLog = (line: string): void => {
  process.stderr.write(`[local-cluster] ${line}\n`);
};

async function kwokEnv(): Promise<{ env: NodeJS.ProcessEnv; binDir: string }> {
  const binDir = await ensureBinaries();
  return {
    binDir,
    env: { ...process.env, KWOK_WORKDIR: kwokWorkdir, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}` },
  };
}

/** True when the cluster behind the kubeconfig answers /readyz. */
export async function isClusterReady(kubeconfig = testKubeconfigPath()): Promise<boolean> {
  if (!existsSync(kubeconfig)) return false;
  try {
    const out = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', '--raw', '/readyz', '--request-timeout=5s'], { timeoutMs: 10_000 });
    return out.trim() === 'ok';
  } catch {
    return false;
  }
}

export function kubectl(args: readonly string[], input?: string, kubeconfig = testKubeconfigPath()): Promise<string> {
  return run('kubectl', ['--kubeconfig', kubeconfig, ...args], input === undefined ? {} : { input });
}

async function clusterExists(env: NodeJS.ProcessEnv): Promise<boolean> {
  const out = await run('kwokctl', ['get', 'clusters'], { env });
  return out.split('\n').map((l) => l.trim()).includes(clusterName);
}

/** kwok's configuration and the simulated kubelet's stages, as a cluster created now gets them. */
async function kwokConfigText(options: KwokConfigurationOptions): Promise<string> {
  const files = (await readdir(stagesDir)).filter((f) => f.endsWith('.yaml')).sort();
  const docs = await Promise.all(files.map((f) => readFile(path.join(stagesDir, f), 'utf8')));
  return [kwokConfiguration(pkiDirOf(clusterName), options), ...docs].map((d) => d.trim()).join('\n---\n') + '\n';
}

/** The configuration the cluster was created with: kwok reads it only then. */
const createdConfigFile = path.join(clusterDir, 'kwok-config.yaml');

/** Whether the existing cluster was created with another kwok configuration or other stages than the checkout's (or unknown ones). */
async function configChanged(options: KwokConfigurationOptions): Promise<boolean> {
  const created = await readFile(createdConfigFile, 'utf8').catch(() => undefined);
  return created !== (await kwokConfigText(options));
}

async function createCluster(env: NodeJS.ProcessEnv, binDir: string, options: KwokConfigurationOptions, log: (l: string) => void): Promise<void> {
  const bin = (name: string): string => path.join(binDir, name);
  const config = createdConfigFile;
  await writeFile(config, await kwokConfigText(options));
  log(`creating cluster "${clusterName}" (kwokctl, binary runtime)...`);
  await run(
    'kwokctl',
    [
      'create', 'cluster',
      '--name', clusterName,
      '--runtime', 'binary',
      '--kube-apiserver-binary', bin('kube-apiserver'),
      '--kube-controller-manager-binary', bin('kube-controller-manager'),
      '--kube-scheduler-binary', bin('kube-scheduler'),
      '--etcd-binary', bin('etcd'),
      '--kwok-controller-binary', bin('kwok'),
      '--config', config,
      '--kubeconfig', kubeconfigPath,
      // Admission webhooks and RBAC behave as in a real cluster.
      '--kube-admission',
      '--kube-authorization',
      // PVCs of the default StorageClass get a fresh hostPath PV each (kcm's dev provisioner).
      '--extra-args', 'kube-controller-manager=enable-hostpath-provisioner=true',
      // Single instances: without leader election they ride out an apiserver restart instead of
      // exiting when their lease cannot be renewed (restartComponent would leave them dead).
      '--extra-args', 'kube-controller-manager=leader-elect=false',
      '--extra-args', 'kube-scheduler=leader-elect=false',
      '--disable-qps-limits',
      '--wait', '3m',
      '--timeout', '10m',
    ],
    { env, timeoutMs: 12 * 60_000 },
  );
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(500);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

async function installClusterObjects(nodes: number, log: (l: string) => void): Promise<void> {
  await kubectl(['apply', '-f', '-'], nodeManifests(nodes), kubeconfigPath);
  await kubectl(['apply', '-f', '-'], storageClassManifest(), kubeconfigPath);
  log(`waiting for ${nodes} nodes to be Ready...`);
  await waitFor(
    `${nodes} Ready nodes`,
    async () => {
      const out = await kubectl(
        ['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}'],
        undefined,
        kubeconfigPath,
      );
      return out.split('\n').filter((s) => s === 'True').length >= nodes;
    },
    120_000,
  );
  // Pods are admitted only once the service-account controller made the default account.
  await waitFor(
    'the default ServiceAccount',
    async () => (await kubectl(['get', 'serviceaccount', 'default', '-n', 'default', '--ignore-not-found', '-o', 'name'], undefined, kubeconfigPath)).trim() !== '',
    120_000,
  );
}

/**
 * Brings the local cluster up (building binaries the first time) or reuses the running one.
 * With E2E_KUBECONFIG set, nothing is started: that cluster is used as it is.
 */
export async function startCluster(options: StartClusterOptions = {}): Promise<ClusterHandle> {
  const log = options.log ?? defaultLog;
  if (usingExternalCluster()) return { kubeconfigPath: testKubeconfigPath(), started: false };
  const nodes = options.nodes ?? Number(process.env.CLONESET_SUITE_NODES ?? 6);
  await mkdir(clusterDir, { recursive: true });
  const { env, binDir } = await kwokEnv();
  const config: KwokConfigurationOptions = { extraAdmissionPlugins: options.extraAdmissionPlugins ?? [] };
  let started = false;
  // kwok reads its configuration and stages only when the cluster is created: a cluster made before
  // the checkout's changed would simulate the old kubelet (or hand out IPs of the old CIDR), so it
  // is made again.
  if ((await clusterExists(env)) && (await configChanged(config))) {
    log(`kwok's configuration (admission plugins included) or the simulated kubelet's stages changed since cluster "${clusterName}" was created: recreating it...`);
    // A real node's kubelet would go on reporting to the deleted cluster's apiserver.
    await stopRealNode(clusterName, log);
    await run('kwokctl', ['delete', 'cluster', '--name', clusterName], { env, timeoutMs: 5 * 60_000 });
    await rm(kubeconfigPath, { force: true });
  }
  if (!(await isClusterReady(kubeconfigPath))) {
    started = true;
    if (await clusterExists(env)) {
      log(`starting the existing cluster "${clusterName}"...`);
      try {
        await run('kwokctl', ['start', 'cluster', '--name', clusterName, '--timeout', '5m'], { env, timeoutMs: 6 * 60_000 });
        await run('kwokctl', ['get', 'kubeconfig', '--name', clusterName], { env }).then((kc) => writeFile(kubeconfigPath, kc));
      } catch (err) {
        log(`restarting failed (${(err as Error).message}); recreating the cluster`);
        await stopRealNode(clusterName, log);
        await run('kwokctl', ['delete', 'cluster', '--name', clusterName], { env });
        await rm(kubeconfigPath, { force: true });
        await createCluster(env, binDir, config, log);
      }
    } else {
      await rm(kubeconfigPath, { force: true });
      await createCluster(env, binDir, config, log);
    }
    await waitFor('the apiserver', () => isClusterReady(kubeconfigPath), 120_000);
  }
  await installClusterObjects(nodes, log);
  if (options.realNode ?? process.env.CLONESET_SUITE_REAL_NODE === '1') {
    await startRealNode({ clusterName, kubeconfig: kubeconfigPath, clientCAFile: path.join(pkiDirOf(clusterName), 'ca.crt'), binDir: await ensureBinaries(['kubelet']), log });
  }
  log('checking that a pod gets scheduled and made Ready...');
  await waitForWorkingControlPlane();
  log(`cluster ready; export KUBECONFIG=${path.relative(process.cwd(), kubeconfigPath) || kubeconfigPath}`);
  return { kubeconfigPath, started };
}

/** Deletes the local cluster and its kubeconfig. */
export async function stopCluster(options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? defaultLog;
  const { env } = await kwokEnv();
  await stopRealNode(clusterName, log);
  if (await clusterExists(env)) {
    log(`deleting cluster "${clusterName}"...`);
    await run('kwokctl', ['delete', 'cluster', '--name', clusterName], { env, timeoutMs: 5 * 60_000 });
  }
  await rm(kubeconfigPath, { force: true });
}

export type ComponentName = 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'etcd' | 'kwok-controller';

/**
 * Stops one component process, waits `downMs`, and starts it again; returns once the control
 * plane works again end to end (see waitForWorkingControlPlane). Used to prove watches survive
 * an apiserver restart.
 */
export async function restartComponent(component: ComponentName, downMs = 1_000): Promise<void> {
  if (usingExternalCluster()) throw new Error('restartComponent works only on the local cluster');
  const { env } = await kwokEnv();
  const pid = await componentPid(component);
  if (pid === undefined) throw new Error(`no pid for ${component} in ${pidFile(component)}`);
  process.kill(pid, 'SIGTERM');
  try {
    await waitFor(`${component} to exit`, () => Promise.resolve(!processAlive(pid)), 5_000);
  } catch {
    // kube-apiserver drains long-running watches for a minute on SIGTERM; a crash is as good a restart.
    process.kill(pid, 'SIGKILL');
    await waitFor(`${component} to be killed`, () => Promise.resolve(!processAlive(pid)), 10_000);
  }
  await sleep(downMs);
  const deadline = Date.now() + 180_000;
  for (;;) {
    // kwokctl starts only the components whose pid file names no live process, and an exited
    // process nobody reaped yet (this sandbox's init reaps slowly) still looks alive to it: drop
    // the pid files of dead components so kwokctl really starts them.
    for (const name of componentNames) {
      const p = await componentPid(name);
      if (p !== undefined && !processAlive(p)) await rm(pidFile(name), { force: true });
    }
    await run('kwokctl', ['start', 'cluster', '--name', clusterName, '--timeout', '3m'], { env, timeoutMs: 4 * 60_000 });
    const up = await waitFor('the apiserver', () => isClusterReady(kubeconfigPath), 30_000).then(
      () => true,
      () => false,
    );
    // A component that lost the apiserver may exit a little later: check them all.
    if (up && (await sleep(2_000), (await componentStatus()).every((c) => c.running))) break;
    if (Date.now() > deadline) throw new Error(`the cluster did not come back after restarting ${component}: ${await describeComponents()}`);
  }
  await waitForWorkingControlPlane();
}

/** Namespaces the control-plane probe creates (and deletes at once) start with this. */
export const PROBE_NAMESPACE_PREFIX = 'control-plane-probe-';

/**
 * Returns once the controllers behind the suites work again: a new namespace gets its default
 * ServiceAccount (kube-controller-manager) and a pod there is scheduled and made Ready (scheduler
 * and kwok). After an apiserver restart their informers relist with backoff, so the apiserver
 * answering is not enough for the next suite.
 */
export async function waitForWorkingControlPlane(timeoutMs = 120_000): Promise<void> {
  const ns = `${PROBE_NAMESPACE_PREFIX}${Date.now().toString(36)}`;
  await kubectl(['create', 'namespace', ns], undefined, kubeconfigPath);
  try {
    const sa = () => kubectl(['get', 'serviceaccount', 'default', '-n', ns, '--ignore-not-found', '-o', 'name'], undefined, kubeconfigPath);
    await waitFor(`the default ServiceAccount in ${ns}`, async () => (await sa()).trim() !== '', timeoutMs);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'probe', namespace: ns }, spec: { containers: [{ name: 'probe', image: 'probe' }] } };
    await kubectl(['create', '-f', '-'], JSON.stringify(pod), kubeconfigPath);
    await waitFor(
      `the probe pod in ${ns} to be Ready`,
      async () => (await kubectl(['get', 'pod', 'probe', '-n', ns, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'], undefined, kubeconfigPath)).trim() === 'True',
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; components: ${await describeComponents()}`, { cause: err });
  } finally {
    await kubectl(['delete', 'namespace', ns, '--wait=false'], undefined, kubeconfigPath).catch(() => undefined);
  }
}

export const componentNames: readonly ComponentName[] = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok-controller'];

function pidFile(component: ComponentName): string {
  return path.join(kwokWorkdir, 'clusters', clusterName, 'pids', `${component}.pid`);
}

/** The pid kwokctl recorded for a component of the local cluster, if any. */
export async function componentPid(component: ComponentName): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile(component), 'utf8').catch(() => '')).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Which local control-plane processes run (by kwokctl's pid files); for diagnostics. */
export async function componentStatus(): Promise<{ component: ComponentName; running: boolean }[]> {
  return Promise.all(
    componentNames.map(async (component) => {
      const pid = await componentPid(component);
      return { component, running: pid !== undefined && processAlive(pid) };
    }),
  );
}

/** One line naming each local control-plane component and whether it runs. */
export async function describeComponents(): Promise<string> {
  if (usingExternalCluster()) return 'external cluster';
  return (await componentStatus()).map((c) => `${c.component} ${c.running ? 'running' : 'NOT RUNNING'}`).join(', ');
}
