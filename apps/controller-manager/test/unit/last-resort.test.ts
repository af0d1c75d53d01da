import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { crashReport, type CrashEvent, type CrashReport } from '../../src/last-resort.ts';
import { spawnManager, unreachableKubeconfig } from '../support/process.ts';

describe('crashReport (what the crash line says about the thrown value)', () => {
  const boom = new TypeError('boom');
  it.each<[string, unknown, CrashReport['error']]>([
    ['an Error: name, message and stack', boom, { type: 'TypeError', message: 'boom', stack: boom.stack ?? '' }],
    ['a string', 'just a string', { type: 'string', message: "'just a string'" }],
    ['undefined (Promise.reject())', undefined, { type: 'undefined', message: 'undefined' }],
    ['null', null, { type: 'null', message: 'null' }],
    ['a plain object', { code: 42 }, { type: 'object', message: '{ code: 42 }' }],
  ])('%s', (_name, thrown, error) => {
    expect(crashReport('unhandledRejection', thrown)).toEqual({ event: 'unhandledRejection', error });
  });
});

/** The JSON lines of a process's output (other lines are skipped). */
function jsonLines(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown> | null;
      return parsed && typeof parsed === 'object' ? [parsed] : [];
    } catch {
      return [];
    }
  });
}

describe('the manager process on a crash it did not expect', () => {
  const preload = fileURLToPath(new URL('../support/crash-once-started.ts', import.meta.url));
  it.each<[CrashEvent, string, string]>([
    ['uncaughtException', 'throw', 'crash test: an exception nobody catches'],
    ['unhandledRejection', 'rejection', 'crash test: a rejection nobody handles'],
  ])('%s: one JSON error line through its logger, then exit 1', async (event, mode, message) => {
    const p = spawnManager(
      [`--kubeconfig=${unreachableKubeconfig()}`, '--metrics-bind-address=0', '--health-probe-bind-address=0', '--webhook-port=0', '--leader-election-namespace=default'],
      { ...process.env, CRASH_MODE: mode },
      ['--import', preload],
    );
    expect(await p.exited).toBe(1);
    const lines = jsonLines(p.output());
    expect(lines.some((l) => l.msg === 'controller-manager started')).toBe(true);
    const crashes = lines.filter((l) => l.event === event);
    expect(crashes, p.output().slice(-2000)).toHaveLength(1);
    expect(crashes[0]).toMatchObject({ level: 'error', component: 'controller-manager', error: { type: 'Error', message } });
    expect(String((crashes[0]?.error as { stack?: string }).stack)).toContain('crash-once-started.ts');
  });
});
