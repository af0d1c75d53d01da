// What both installs of the local release run: commands with their stderr shown, the address the
// manager's pods dial the apiserver at, and the wait for the manager's rollout.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { clusterName, kubeconfigPath } from '../paths.ts';
import { networkOf } from '../real-node/config.ts';
import { apiserverPort, gatewayOf, type ApiserverAddress } from './apiserver-access.ts';
import { MANAGER_DEPLOYMENT, RELEASE_NAMESPACE } from './release-values.ts';

export const log = (line: string): void => {
  process.stderr.write(`[deploy-local] ${line}\n`);
};

/** Runs a command with its stderr shown as it comes; returns stdout. */
export function runShown(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** The apiserver as the real node's pods reach it: the pod bridge's gateway and the kubeconfig's port. */
export async function clusterApiserverAddress(): Promise<ApiserverAddress> {
  const kubeconfig = parse(await readFile(kubeconfigPath, 'utf8')) as { clusters?: { cluster?: { server?: string } }[] };
  const server = kubeconfig.clusters?.[0]?.cluster?.server;
  if (server === undefined) throw new Error(`${kubeconfigPath} names no server`);
  return { ip: gatewayOf(networkOf(clusterName).podSubnet), port: apiserverPort(server) };
}

export async function waitForRollout(): Promise<void> {
  log('waiting for the rollout...');
  await runShown('kubectl', ['--kubeconfig', kubeconfigPath, 'rollout', 'status', `deployment/${MANAGER_DEPLOYMENT}`, '-n', RELEASE_NAMESPACE, '--timeout=5m']);
}
