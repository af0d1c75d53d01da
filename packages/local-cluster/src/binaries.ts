// Builds (once) and locates the pinned control-plane binaries. The versions live in
// scripts/build-binaries.sh, the single place that knows them.
import { spawn } from 'node:child_process';
import { buildScript } from './paths.ts';

export const controlPlaneBinaries = [
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'etcd',
  'kwok',
  'kwokctl',
] as const;

/** Binaries built only when asked for: the real node's. */
export type NodeBinary = 'kubelet';

/** Builds whatever is missing (progress goes to stderr) and returns the bin directory. */
export async function ensureBinaries(extras: readonly NodeBinary[] = []): Promise<string> {
  const child = spawn('bash', [buildScript, ...extras], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`building the local control plane failed (exit ${code}); see the messages above`);
  const binDir = out.trim().split('\n').at(-1);
  if (!binDir) throw new Error('build-binaries.sh printed no bin directory');
  return binDir;
}
