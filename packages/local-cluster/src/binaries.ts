// Builds (once) and locates the pinned control-plane binaries. The versions live in
// scripts/build-binaries.sh, the single place that knows them.
import { spawn } from 'node:child_process';
import path from 'node:path';
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
  return runBuildScript(buildScript, extras, 'building the local control plane');
}

/**
 * Runs one of scripts/build-*.sh, which print progress on stderr and the directory they built
 * into as their last stdout line; returns that directory.
 */
export async function runBuildScript(script: string, args: readonly string[], what: string): Promise<string> {
  const child = spawn('bash', [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`${what} failed (exit ${code}); see the messages above`);
  const dir = out.trim().split('\n').at(-1);
  if (!dir) throw new Error(`${path.basename(script)} printed no directory`);
  return dir;
}
