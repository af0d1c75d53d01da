// One registered poll task: GET `<poll.url>?<key>=<taskId>` every interval until the server says
// finished or stop, or the timeout passes. Finished names of the task's own pods accumulate
// (poll-answer.ts); an HTTP or parse error, or an answer listing more names than the task has
// pods, is recorded as the task's message and polling goes on. Every attempt reports a change.
import type { Clock, TimerHandle } from '@cloneset-suite/kube-runtime';
import { mergeFinishedNames } from '../core/poll-answer.ts';
import { parsePollResponse } from '../core/protocol.ts';
import type { PollRegistration, PollSnapshot } from '../core/webhook-runtime.ts';
import type { WebhookCaller } from '../http/webhook-client.ts';
import { tenantText } from './tenant-text.ts';

/** The in-memory task is forgotten this long after its timeout if nobody consumed it. */
export const POLL_DISCARD_GRACE_MS = 60_000;

export function pollUrl(base: string, key: string, taskId: string): string {
  const url = new URL(base);
  url.searchParams.set(key, taskId);
  return url.toString();
}

export class PollTask {
  private approved: ReadonlySet<string> = new Set();
  /** The sorted list of `approved`, made again only when it changes. */
  private approvedList: readonly string[] = [];
  private finished = false;
  private stopped = false;
  private message = '';
  private lastQueryMs: number | undefined;
  private timer: TimerHandle | undefined;
  private readonly abort = new AbortController();
  private readonly taskId: string;
  private readonly namespace: string;
  private readonly pods: ReadonlySet<string>;
  private readonly poll: PollRegistration;
  private readonly beginMs: number;
  private readonly caller: WebhookCaller;
  private readonly clock: Clock;
  private readonly onChange: () => void;
  private readonly onDiscard: () => void;

  constructor(options: {
    taskId: string;
    namespace: string;
    /** The pods the task was registered for: only these can be approved. */
    pods: readonly string[];
    poll: PollRegistration;
    beginMs: number;
    caller: WebhookCaller;
    clock: Clock;
    onChange: () => void;
    onDiscard: () => void;
  }) {
    this.taskId = options.taskId;
    this.namespace = options.namespace;
    this.pods = new Set(options.pods);
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
      approved: this.approvedList,
      finished: this.finished,
      stopped: this.stopped,
      message: this.message,
      lastQueryMs: this.lastQueryMs,
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
      this.apply(parsePollResponse(raw));
    } catch (err) {
      if (this.abort.signal.aborted) return;
      this.message = `poll failed: ${tenantText(err)}`;
    }
    this.lastQueryMs = this.clock.now();
    this.onChange();
    if (this.finished || this.stopped) this.timer = this.clock.setTimer(() => this.onDiscard(), POLL_DISCARD_GRACE_MS, { unref: true });
    else this.schedule(this.poll.intervalMs);
  }

  private apply(res: ReturnType<typeof parsePollResponse>): void {
    const merged = mergeFinishedNames(this.pods, this.approved, res.finishedNames);
    if (!merged.ok) {
      this.message = `poll failed: invalid-response (${merged.problem})`;
      return;
    }
    if (merged.changed) {
      this.approved = merged.approved;
      this.approvedList = [...merged.approved].sort();
    }
    this.message = res.message;
    if (res.success && res.finished) this.finished = true;
    else if (res.stop) this.stopped = true;
  }
}
