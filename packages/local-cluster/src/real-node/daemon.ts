// Starts a host daemon that outlives this process (as kwokctl's components do) and stops it by
// the pid it recorded.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { processAlive as alive } from '../process-alive.ts';
import { sleep } from '../run.ts';

export async function startDaemon(command: string, args: readonly string[], pidFile: string, logFile: string): Promise<number> {
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => resolve(child.pid ?? -1));
  });
  child.unref();
  await writeFile(pidFile, `${pid}\n`);
  return pid;
}

export function daemonPid(pidFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; removes the pid file. */
export async function stopDaemon(pidFile: string, graceMs = 10_000): Promise<void> {
  const pid = daemonPid(pidFile);
  if (pid !== undefined && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (alive(pid) && Date.now() < deadline) await sleep(100);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
    while (alive(pid)) await sleep(100);
  }
  await rm(pidFile, { force: true });
}
