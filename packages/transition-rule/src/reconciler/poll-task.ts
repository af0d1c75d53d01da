// One registered poll task (spec §2.9 step 4): GET `<poll.url>?<key>=<taskId>` every interval
// until the server says finished or stop, or the timeout passes. finishedNames accumulate; an
// HTTP or parse error is recorded and polling goes on. Every attempt reports a change.
import type { Clock, TimerHandle } from '@cloneset-suite/kube-runtime';
import { parsePollResponse } from '../core/protocol.ts';
import type { PollRegistration, PollSnapshot } from '../core/webhook-runtime.ts';
import type { WebhookCaller } from '../http/webhook-client.ts';

/** The in-memory task is forgotten this long after its timeout if nobody consumed it. */
export const POLL_DISCARD_GRACE_MS = 60_000;

export function pollUrl(base: string, key: string, taskId: string): string {
  const url = new URL(base);
  url.searchParams.set(key, taskId);
  return url.toString();
}

export class PollTask {
  private approved = new Set<string>();
  private finished = false;
  private stopped = false;
  private message = '';
  private lastQueryMs: number | undefined;
  private timer: TimerHandle | undefined;
  private readonly abort = new AbortController();
  private readonly taskId: string;
  private readonly namespace: string;
  private readonly poll: PollRegistration;
  private readonly beginMs: number;
  private readonly caller: WebhookCaller;
  private readonly clock: Clock;
  private readonly onChange: () => void;
  private readonly onDiscard: () => void;

  constructor(options: { taskId: string; namespace: string; poll: PollRegistration; beginMs: number; caller: WebhookCaller; clock: Clock; onChange: () => void; onDiscard: () => void }) {
    this.taskId = options.taskId;
    this.namespace = options.namespace;
    this.poll = options.poll;
    this.beginMs = options.beginMs;
    this.caller = options.caller;
    this.clock = options.clock;
    this.onChange = options.onChange;
    this.onDiscard = options.onDiscard;
    this.schedule(this.poll.intervalMs);
  }

  snapshot(): PollSnapshot {
    return {
      taskId: this.taskId,
      approved: [...this.approved].sort(),
      finished: this.finished,
      stopped: this.stopped,
      message: this.message,
      ...(this.lastQueryMs !== undefined ? { lastQueryMs: this.lastQueryMs } : {}),
    };
  }

  cancel(): void {
    this.timer?.cancel();
    this.abort.abort();
  }

  private schedule(ms: number): void {
    this.timer = this.clock.setTimer(() => void this.tick(), ms, { unref: true });
  }

  private async tick(): Promise<void> {
    const now = this.clock.now();
    if (now > this.beginMs + this.poll.timeoutMs) {
      this.stopped = true;
      this.message = `Polling Timeout. task ${this.taskId} did not finish within ${this.poll.timeoutMs / 1000}s${this.message ? `, last message: ${this.message}` : ''}`;
      this.onChange();
      this.timer = this.clock.setTimer(() => this.onDiscard(), POLL_DISCARD_GRACE_MS, { unref: true });
      return;
    }
    try {
      const raw = await this.caller.get({ url: pollUrl(this.poll.url, this.poll.queryKey, this.taskId), caBundle: this.poll.caBundle, namespace: this.namespace, signal: this.abort.signal });
      const res = parsePollResponse(raw);
      for (const n of res.finishedNames) this.approved.add(n);
      this.message = res.message;
      if (res.success && res.finished) this.finished = true;
      else if (res.stop) this.stopped = true;
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.message = `poll failed: ${(err as Error).message}`;
    }
    this.lastQueryMs = this.clock.now();
    this.onChange();
    if (this.finished || this.stopped) this.timer = this.clock.setTimer(() => this.onDiscard(), POLL_DISCARD_GRACE_MS, { unref: true });
    else this.schedule(this.poll.intervalMs);
  }
}
