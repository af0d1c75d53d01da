// A containerd of the test's own (its own root, state and socket, CRI off), so importing and
// running the image never touches a containerd the machine or the local cluster's node runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';

const execFileAsync = promisify(execFile);
const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

export interface PrivateContainerd {
  /** Runs `ctr` against this containerd; resolves with the exit code and both outputs. */
  ctr(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

export async function ensureDebianPackages(commands: Record<string, string>): Promise<void> {
  const missing = Object.entries(commands).filter(([command]) => !['/usr/bin', '/usr/sbin', '/bin', '/sbin'].some((d) => existsSync(path.join(d, command))));
  if (missing.length === 0) return;
  const packages = missing.map(([, pkg]) => pkg);
  const install = () => execFileAsync('apt-get', ['install', '-y', '-qq', ...packages], { env: aptEnv, timeout: 600_000 });
  // A fresh machine's package lists may be missing or stale.
  await install().catch(async () => {
    await execFileAsync('apt-get', ['update', '-qq'], { timeout: 600_000 });
    await install();
  });
}

export async function startPrivateContainerd(): Promise<PrivateContainerd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ctrd-'));
  const socket = path.join(dir, 'containerd.sock');
  await writeFile(
    path.join(dir, 'config.toml'),
    `version = 2\nroot = "${dir}/root"\nstate = "${dir}/state"\ndisabled_plugins = ["io.containerd.grpc.v1.cri"]\n[grpc]\n  address = "${socket}"\n`,
  );
  const daemon: ChildProcess = spawn('containerd', ['--config', path.join(dir, 'config.toml')], { stdio: 'ignore' });
  const ctr: PrivateContainerd['ctr'] = (args) =>
    new Promise((resolve, reject) => {
      const child = spawn('ctr', ['--address', socket, '--namespace', 'image-test', ...args]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  const deadline = Date.now() + 30_000;
  while ((await ctr(['version'])).code !== 0) {
    if (Date.now() > deadline || daemon.exitCode !== null) throw new Error(`containerd did not answer on ${socket}`);
    await sleep(200);
  }
  return {
    ctr,
    async stop() {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => (daemon.exitCode !== null ? resolve(undefined) : daemon.once('exit', resolve)));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
