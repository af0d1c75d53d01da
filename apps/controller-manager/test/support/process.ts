// Runs the controller-manager as a child process (node on its .ts entry), collecting output.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const mainEntry = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface ManagerProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

export function spawnManager(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ManagerProcess {
  const child = spawn(process.execPath, [mainEntry, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => out, exited };
}

