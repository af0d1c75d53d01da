// Poll answers are bounded by the task's own pods: names of other pods are never kept, an answer
// listing more names than the task has pods fails the round, and the snapshot a round reads is
// not rebuilt (copied and sorted) while nothing changes.
import fc from 'fast-check';
import { FakeClock } from '@cloneset-suite/kube-runtime';
import { describe, expect, it } from 'vitest';
import { mergeFinishedNames } from '../../src/core/poll-answer.ts';
import type { WebhookCall, WebhookCaller } from '../../src/http/webhook-client.ts';
import { PollTask } from '../../src/reconciler/poll-task.ts';

describe('mergeFinishedNames', () => {
  const pods = new Set(['a', 'b', 'c']);
  it.each<[string, string[], string[], string[] | 'refused', boolean]>([
    ['nothing new', ['a'], ['a'], ['a'], false],
    ['the task\'s pods are added', [], ['b', 'a'], ['a', 'b'], true],
    ['other names are dropped', ['a'], ['zz', 'b', 'yy'], ['a', 'b'], true],
    ['only other names: no change', [], ['x', 'y'], [], false],
    ['repeats count once', [], ['c', 'c'], ['c'], true],
    ['more names than pods: refused', [], ['a', 'b', 'c', 'd'], 'refused', false],
  ])('%s', (_name, before, names, after, changed) => {
    const approved = new Set(before);
    const out = mergeFinishedNames(pods, approved, names);
    if (after === 'refused') {
      expect(out).toEqual({ ok: false, problem: 'the answer lists 4 finished names for a task of 3 pod(s)' });
      return;
    }
    expect(out.ok && [...out.approved].sort()).toEqual(after);
    expect(out.ok && out.changed).toBe(changed);
    // Unchanged: the very same set, nothing copied.
    if (!changed) expect(out.ok && out.approved).toBe(approved);
  });

  it('property: approved stays within the task\'s pods and only grows', () => {
    const name = fc.constantFrom<string>('a', 'b', 'c', 'd', 'x', 'y');
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 4 }), fc.array(fc.array(name, { maxLength: 6 }), { maxLength: 10 }), (podList, answers) => {
        const pods = new Set(podList);
        let approved: ReadonlySet<string> = new Set();
        for (const answer of answers) {
          const out = mergeFinishedNames(pods, approved, answer);
          if (!out.ok) {
            expect(answer.length).toBeGreaterThan(pods.size);
            continue;
          }
          for (const n of approved) expect(out.approved.has(n)).toBe(true);
          for (const n of out.approved) expect(pods.has(n)).toBe(true);
          approved = out.approved;
        }
      }),
    );
  });
});

/** A poll server that answers each GET with whatever `answer` returns. */
function caller(answer: (round: number) => unknown): WebhookCaller & { rounds: number } {
  const c = {
    rounds: 0,
    post: () => Promise.reject(new Error('no POST here')),
    get: (_call: WebhookCall) => Promise.resolve(answer(c.rounds++)),
    close: () => Promise.resolve(),
  };
  return c;
}

function task(pods: string[], server: WebhookCaller, clock: FakeClock): PollTask {
  return new PollTask({
    taskId: 'T',
    namespace: 'ns',
    pods,
    poll: { url: 'https://hook.example/result', queryKey: 'task-id', intervalMs: 1_000, timeoutMs: 10_000_000 },
    beginMs: 0,
    caller: server,
    clock,
    onChange: () => undefined,
    onDiscard: () => undefined,
  });
}

describe('PollTask against a server answering foreign names', () => {
  it('10^6 foreign names over 1,000 polls keep nothing, and each snapshot costs no copy', async () => {
    const clock = new FakeClock();
    const pods = Array.from({ length: 1_000 }, (_, i) => `pod-${i}`);
    // Each answer: 1,000 fresh names that are none of the task's pods (as many as it has pods).
    const server = caller((round) => ({ success: true, finished: false, finishedNames: Array.from({ length: 1_000 }, (_, i) => `stranger-${round}-${i}`) }));
    const t = task(pods, server, clock);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const first = t.snapshot();
    for (let i = 0; i < 1_000; i++) {
      await clock.advance(1_000);
      expect(t.snapshot().approved).toBe(first.approved);
    }
    const elapsed = performance.now() - started;
    expect(server.rounds).toBe(1_000);
    expect(t.snapshot().approved).toEqual([]);
    global.gc?.();
    // The answers themselves are garbage once applied: what the task keeps does not grow.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    expect(elapsed).toBeLessThan(20_000);
    t.cancel();
  });

  it('one answer of 10^6 names fails the round with a clear class, keeps nothing and polls on', async () => {
    const clock = new FakeClock();
    const million = Array.from({ length: 1_000_000 }, (_, i) => `stranger-${i}`);
    const server = caller((round) => (round === 0 ? { success: true, finished: true, finishedNames: million } : { success: true, finished: false, finishedNames: ['a'] }));
    const t = task(['a', 'b'], server, clock);
    const started = performance.now();
    await clock.advance(1_000);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(t.snapshot()).toMatchObject({ approved: [], finished: false, message: 'poll failed: invalid-response (the answer lists 1000000 finished names for a task of 2 pod(s))' });
    await clock.advance(1_000);
    expect(t.snapshot()).toMatchObject({ approved: ['a'], finished: false });
    t.cancel();
  });

  it('the snapshot is made again only when the approved pods change', async () => {
    const clock = new FakeClock();
    const answers = [['a'], ['a'], ['a', 'b'], ['b', 'a']];
    const server = caller((round) => ({ success: true, finished: false, finishedNames: answers[Math.min(round, answers.length - 1)] }));
    const t = task(['a', 'b', 'c'], server, clock);
    await clock.advance(1_000);
    const one = t.snapshot().approved;
    await clock.advance(1_000);
    expect(t.snapshot().approved).toBe(one);
    await clock.advance(1_000);
    const two = t.snapshot().approved;
    expect(two).toEqual(['a', 'b']);
    await clock.advance(1_000);
    expect(t.snapshot().approved).toBe(two);
    t.cancel();
  });
});
