// Runs the controller-manager as a child process (node on its .ts entry), collecting output.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const mainEntry = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface ManagerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** `nodeArgs` go to node before the entry (e.g. `--import` of a test preload). */
export function spawnManager(args: readonly string[], env: NodeJS.ProcessEnv = process.env, nodeArgs: readonly string[] = []): ManagerProcess {
  const child = spawn(process.execPath, [...nodeArgs, mainEntry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => out, exited };
}


/** A kubeconfig for an apiserver that is not there: the manager starts and keeps retrying. */
export function unreachableKubeconfig(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cm-cli-')), 'kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return file;
}
