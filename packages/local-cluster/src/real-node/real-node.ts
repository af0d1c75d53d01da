// The real node: a kubelet (built from the control plane's Kubernetes module) on containerd, runc
// and CNI bridge networking, beside kwok's fake nodes. Its daemons outlive this process, as the
// control plane's do; stopRealNode ends them and everything they started.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot, packageRoot } from '../paths.ts';
import { run, sleep } from '../run.ts';
import { freePort } from '../free-port.ts';
import {
  PAUSE_IMAGE,
  REAL_NODE_LABEL,
  REAL_NODE_NAME,
  TEST_IMAGES,
  cniConfDir,
  cniConfig,
  containerdConfig,
  containerdSocket,
  kubeletConfig,
  networkOf,
  type RealNodeLayout,
} from './config.ts';
import { daemonPid, startDaemon, stopDaemon } from './daemon.ts';
import { assertRoot, ensureHostPackages } from './host-packages.ts';
import { processAlive } from '../process-alive.ts';

const nodeImagesScript = path.join(packageRoot, 'scripts', 'build-node-images.sh');

export function realNodeDir(clusterName: string): string {
  return path.join(cacheRoot, 'real-node', clusterName);
}

const pidFileOf = (dir: string, daemon: 'containerd' | 'kubelet'): string => path.join(dir, `${daemon}.pid`);

/** The layout a node made before keeps (its kubelet port); a new node gets a free port. */
async function layoutOf(clusterName: string, kubeconfig: string, clientCAFile: string): Promise<RealNodeLayout> {
  const dir = realNodeDir(clusterName);
  const portFile = path.join(dir, 'kubelet-port');
  const kept = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : NaN;
  const kubeletPort = Number.isInteger(kept) && kept > 0 ? kept : await freePort();
  await mkdir(dir, { recursive: true });
  await writeFile(portFile, `${kubeletPort}\n`);
  return { dir, kubeconfig, clientCAFile, kubeletPort, ...networkOf(clusterName) };
}

const ctr = (layout: RealNodeLayout, args: readonly string[], timeoutMs = 120_000): Promise<string> =>
  run('ctr', ['--address', containerdSocket(layout), '--namespace', 'k8s.io', ...args], { timeoutMs });

async function startContainerd(layout: RealNodeLayout, log: (line: string) => void): Promise<void> {
  const pidFile = pidFileOf(layout.dir, 'containerd');
  const pid = daemonPid(pidFile);
  if (pid !== undefined && processAlive(pid)) return;
  await mkdir(path.join(layout.dir, 'containerd'), { recursive: true });
  await mkdir(cniConfDir(layout), { recursive: true });
  await writeFile(path.join(cniConfDir(layout), '10-real-node.conflist'), cniConfig(layout));
  const config = path.join(layout.dir, 'containerd.toml');
  await writeFile(config, containerdConfig(layout));
  log('starting containerd...');
  await startDaemon('containerd', ['--config', config], pidFile, path.join(layout.dir, 'containerd.log'));
  const deadline = Date.now() + 30_000;
  while (!(await ctr(layout, ['version'], 5_000).then(() => true, () => false))) {
    if (Date.now() > deadline) throw new Error(`containerd did not answer on ${containerdSocket(layout)}; see ${layout.dir}/containerd.log`);
    await sleep(200);
  }
}

async function importImages(layout: RealNodeLayout, log: (line: string) => void): Promise<void> {
  const present = await ctr(layout, ['images', 'ls', '-q']);
  const wanted = [PAUSE_IMAGE, ...TEST_IMAGES];
  if (wanted.every((ref) => present.split('\n').includes(ref))) return;
  log(`building and importing ${wanted.join(', ')}...`);
  const archives = (await run('bash', [nodeImagesScript, path.join(cacheRoot, 'node-images'), ...wanted], { timeoutMs: 10 * 60_000 })).trim().split('\n');
  for (const archive of archives) await ctr(layout, ['images', 'import', archive]);
}

/**
 * Imports a docker-archive into the node's containerd and tags the image `<repository>:<tag>`
 * as well: a tag that names the content, so a rebuilt image rolls a Deployment that runs it.
 */
export async function importImage(clusterName: string, archive: string, ref: string, contentTag: (digest: string) => string): Promise<string> {
  const layout = runningLayoutOf(clusterName);
  await ctr(layout, ['images', 'import', archive], 10 * 60_000);
  const listed = await ctr(layout, ['images', 'ls', `name==${ref}`]);
  const digest = listed.split('\n')[1]?.trim().split(/\s+/)[2];
  if (digest?.startsWith('sha256:') !== true) throw new Error(`${archive} did not import as ${ref}: ${listed.trim()}`);
  return tagImage(clusterName, ref, `${ref.slice(0, ref.lastIndexOf(':'))}:${contentTag(digest)}`);
}

/** Gives an image in the node's containerd a second reference (the same content); returns it. */
export async function tagImage(clusterName: string, ref: string, tagged: string): Promise<string> {
  await ctr(runningLayoutOf(clusterName), ['images', 'tag', '--force', ref, tagged]);
  return tagged;
}

/** The layout of a node that runs: enough to reach its containerd. */
function runningLayoutOf(clusterName: string): RealNodeLayout {
  return { dir: realNodeDir(clusterName), kubeconfig: '', clientCAFile: '', kubeletPort: 0, ...networkOf(clusterName) };
}

async function startKubelet(layout: RealNodeLayout, binDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = pidFileOf(layout.dir, 'kubelet');
  const pid = daemonPid(pidFile);
  if (pid !== undefined && processAlive(pid)) return;
  const config = path.join(layout.dir, 'kubelet.yaml');
  await writeFile(config, kubeletConfig(layout));
  log(`starting the kubelet of ${REAL_NODE_NAME}...`);
  await startDaemon(
    path.join(binDir, 'kubelet'),
    [
      `--config=${config}`,
      `--kubeconfig=${layout.kubeconfig}`,
      `--root-dir=${path.join(layout.dir, 'kubelet')}`,
      `--cert-dir=${path.join(layout.dir, 'kubelet-pki')}`,
      `--hostname-override=${REAL_NODE_NAME}`,
      `--node-labels=${REAL_NODE_LABEL}=true,type=real`,
    ],
    pidFile,
    path.join(layout.dir, 'kubelet.log'),
  );
}

async function waitForNodeReady(layout: RealNodeLayout, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await run(
      'kubectl',
      ['--kubeconfig', layout.kubeconfig, 'get', 'node', REAL_NODE_NAME, '--ignore-not-found', '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'],
      { timeoutMs: 15_000 },
    ).catch(() => '');
    if (status.trim() === 'True') return;
    const kubelet = daemonPid(pidFileOf(layout.dir, 'kubelet'));
    if (kubelet === undefined || !processAlive(kubelet)) throw new Error(`the kubelet of ${REAL_NODE_NAME} exited; see ${layout.dir}/kubelet.log`);
    if (Date.now() > deadline) throw new Error(`${REAL_NODE_NAME} was not Ready after ${timeoutMs} ms; see ${layout.dir}/kubelet.log`);
    await sleep(1_000);
  }
}

export interface RealNodeOptions {
  clusterName: string;
  /** The cluster's admin kubeconfig: the kubelet registers and reports with it. */
  kubeconfig: string;
  /** The cluster CA, which signed the apiserver's client certificate. */
  clientCAFile: string;
  /** Where kubelet was built (ensureBinaries(['kubelet'])). */
  binDir: string;
  log: (line: string) => void;
}

/** Starts (or finds running) the cluster's real node and returns once it is Ready. */
export async function startRealNode(options: RealNodeOptions): Promise<void> {
  assertRoot('the real node');
  await ensureHostPackages(options.log);
  const layout = await layoutOf(options.clusterName, options.kubeconfig, options.clientCAFile);
  await startContainerd(layout, options.log);
  await importImages(layout, options.log);
  await startKubelet(layout, options.binDir, options.log);
  await waitForNodeReady(layout, 180_000);
}

/** Whether the cluster has a real node's daemons running on this machine. */
export function realNodeRunning(clusterName: string): boolean {
  const pid = daemonPid(pidFileOf(realNodeDir(clusterName), 'kubelet'));
  return pid !== undefined && processAlive(pid);
}

/**
 * Stops the kubelet, every container it made (their shims outlive containerd otherwise),
 * containerd, and removes the node's mounts, bridge and files.
 */
export async function stopRealNode(clusterName: string, log: (line: string) => void): Promise<void> {
  const dir = realNodeDir(clusterName);
  if (!existsSync(dir)) return;
  log(`stopping the real node of "${clusterName}"...`);
  await stopDaemon(pidFileOf(dir, 'kubelet'));
  const layout = runningLayoutOf(clusterName);
  const containerd = daemonPid(pidFileOf(dir, 'containerd'));
  if (containerd !== undefined && processAlive(containerd)) {
    const tasks = (await ctr(layout, ['tasks', 'ls', '-q']).catch(() => '')).split('\n').filter(Boolean);
    for (const task of tasks) await ctr(layout, ['tasks', 'kill', '--signal', 'SIGKILL', task]).catch(() => '');
    for (const task of tasks) {
      for (let i = 0; i < 50 && (await ctr(layout, ['tasks', 'delete', task]).then(() => false, () => true)); i++) await sleep(100);
    }
    const containers = (await ctr(layout, ['containers', 'ls', '-q']).catch(() => '')).split('\n').filter(Boolean);
    if (containers.length > 0) await ctr(layout, ['containers', 'delete', ...containers]).catch(() => '');
  }
  await stopDaemon(pidFileOf(dir, 'containerd'));
  // The pods' volumes (tmpfs of Secrets), the sandboxes' network namespaces and the snapshots'
  // overlays are mounts below the node's directory: deepest first.
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((m): m is string => m !== undefined && (m === dir || m.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const mount of mounts) await run('umount', ['-l', mount]).catch(() => '');
  await run('ip', ['link', 'delete', layout.bridge]).catch(() => '');
  await rm(dir, { recursive: true, force: true });
}
