// A local ring's processes behave as their Deployments would: an exit nobody asked for is followed
// by a start a second later; stop() and kill(false) end them for good.
import { describe, expect, it } from 'vitest';
import { SupervisedProcess } from '../../src/dev-ring/supervised-process.ts';

const waitFor = async (what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

function child(): { p: SupervisedProcess; lines: string[]; exits: (number | null)[] } {
  const lines: string[] = [];
  const exits: (number | null)[] = [];
  const p = new SupervisedProcess({
    name: 'c',
    command: process.execPath,
    args: ['-e', "console.log('up'); setInterval(() => {}, 1000)"],
    line: (l) => void lines.push(l),
    onExit: (code) => void exits.push(code),
  });
  return { p, lines, exits };
}

describe('a supervised process', () => {
  it('is started again after a SIGKILL, and stop() ends it without a restart', async () => {
    const { p, lines, exits } = child();
    p.start();
    await waitFor('the first start', () => lines.length === 1);
    const first = p.pid;
    await p.kill();
    await waitFor('the restart', () => lines.length === 2);
    expect(exits).toHaveLength(1);
    expect(p.pid).not.toBe(first);
    await p.stop();
    expect(p.running).toBe(false);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(lines).toHaveLength(2);
  });

  it('kill(false) is a loss for good', async () => {
    const { p, lines } = child();
    p.start();
    await waitFor('the start', () => lines.length === 1);
    await p.kill(false);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(lines).toHaveLength(1);
    expect(p.running).toBe(false);
  });
});
