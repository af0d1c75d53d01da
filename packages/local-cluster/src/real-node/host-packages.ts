// The Debian packages a real node runs on, installed when absent (the machine's own files are
// never assumed: a fresh machine has none of them).
import { existsSync } from 'node:fs';
import { run } from '../run.ts';

/** A file each package installs, and the package. */
export const realNodePackages: readonly { file: string; pkg: string }[] = [
  { file: '/usr/bin/containerd', pkg: 'containerd' },
  { file: '/usr/sbin/runc', pkg: 'runc' },
  { file: '/usr/lib/cni/bridge', pkg: 'containernetworking-plugins' },
  { file: '/usr/bin/busybox', pkg: 'busybox-static' },
  { file: '/usr/bin/buildah', pkg: 'buildah' },
  { file: '/usr/sbin/iptables', pkg: 'iptables' },
];

export function assertRoot(what: string): void {
  if (process.getuid?.() !== 0) {
    throw new Error(`${what} needs root (containerd, runc, the kubelet and apt-get run as root); run it as root, or without the real node`);
  }
}

export async function ensureHostPackages(log: (line: string) => void): Promise<void> {
  const missing = realNodePackages.filter((p) => !existsSync(p.file)).map((p) => p.pkg);
  if (missing.length === 0) return;
  log(`installing ${missing.join(' ')} (Debian packages)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '-qq', ...missing], { env, timeoutMs: 15 * 60_000 });
  // A fresh machine's package lists may be missing or stale.
  await install().catch(async () => {
    await run('apt-get', ['update', '-qq'], { timeoutMs: 10 * 60_000 });
    await install();
  });
}
