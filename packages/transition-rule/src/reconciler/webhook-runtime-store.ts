// The in-memory webhook state of every PodTransitionRule: POSTs in flight or answered, retry
// windows, poll tasks. It executes the engine's webhook actions and reports every change (a call
// returned, a poll answered) so the rule is reconciled at once. Calls run outside reconciles, so a
// slow or hanging webhook never holds a worker that other PodTransitionRules need.
import { splitKey, type Clock, type Logger } from '@cloneset-suite/kube-runtime';
import { parseWebhookResponse } from '../core/protocol.ts';
import type { PostState, RetryState, WebhookAction, WebhookRuleRuntime } from '../core/webhook-runtime.ts';
import type { WebhookCaller } from '../http/webhook-client.ts';
import { PollTask } from './poll-task.ts';
import { tenantText } from './tenant-text.ts';

interface RuleEntry {
  post?: PostState;
  retry?: RetryState;
  polls: Map<string, PollTask>;
}

export class WebhookRuntimeStore {
  private readonly rules = new Map<string, Map<string, RuleEntry>>();
  private readonly caller: WebhookCaller;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly changed: (ptrKey: string) => void;
  private readonly abort = new AbortController();

  constructor(options: { caller: WebhookCaller; clock: Clock; logger: Logger; changed: (ptrKey: string) => void }) {
    this.caller = options.caller;
    this.clock = options.clock;
    this.logger = options.logger;
    this.changed = options.changed;
  }

  /** The engine's view of one rule. */
  runtime(ptrKey: string, ruleName: string): WebhookRuleRuntime {
    const e = this.rules.get(ptrKey)?.get(ruleName);
    if (!e) return { polls: new Map() };
    return {
      ...(e.post ? { post: { ...e.post } } : {}),
      ...(e.retry ? { retry: { ...e.retry } } : {}),
      polls: new Map([...e.polls].map(([id, t]) => [id, t.snapshot()])),
    };
  }

  /** Executes the actions of a round. clearPost is deferred by the caller until the status is saved. */
  apply(ptrKey: string, actions: readonly WebhookAction[]): void {
    for (const action of actions) {
      switch (action.type) {
        case 'startPost':
          this.startPost(ptrKey, action);
          break;
        case 'clearPost': {
          const e = this.entry(ptrKey, action.ruleName);
          if (e.post?.traceId === action.traceId) delete e.post;
          break;
        }
        case 'setRetry': {
          const e = this.entry(ptrKey, action.ruleName);
          if (action.retry) e.retry = action.retry;
          else delete e.retry;
          break;
        }
        case 'registerPoll':
          this.registerPoll(ptrKey, action);
          break;
        case 'dropPoll':
          this.dropPoll(ptrKey, action.ruleName, action.taskId);
          break;
        case 'event':
          break;
      }
    }
  }

  /** Forgets a PodTransitionRule (deleted): cancels its polls; calls in flight are ignored when they return. */
  forget(ptrKey: string): void {
    for (const e of this.rules.get(ptrKey)?.values() ?? []) for (const t of e.polls.values()) t.cancel();
    this.rules.delete(ptrKey);
  }

  /** Keeps only the rules still present; state of removed rules is dropped. */
  retainRules(ptrKey: string, ruleNames: ReadonlySet<string>): void {
    const rules = this.rules.get(ptrKey);
    if (!rules) return;
    for (const [name, e] of rules) {
      if (ruleNames.has(name)) continue;
      for (const t of e.polls.values()) t.cancel();
      rules.delete(name);
    }
  }

  /** The controller stopped: cancels polls, ignores calls in flight, and closes the caller (its connections). */
  stop(): Promise<void> {
    this.abort.abort();
    for (const key of [...this.rules.keys()]) this.forget(key);
    return this.caller.close();
  }

  private entry(ptrKey: string, ruleName: string): RuleEntry {
    let rules = this.rules.get(ptrKey);
    if (!rules) {
      rules = new Map<string, RuleEntry>();
      this.rules.set(ptrKey, rules);
    }
    let e = rules.get(ruleName);
    if (!e) {
      e = { polls: new Map<string, PollTask>() };
      rules.set(ruleName, e);
    }
    return e;
  }

  private startPost(ptrKey: string, action: Extract<WebhookAction, { type: 'startPost' }>): void {
    const e = this.entry(ptrKey, action.ruleName);
    const post: PostState = { traceId: action.traceId, pods: action.body.resources.map((r) => r.name) };
    e.post = post;
    const settle = (outcome: NonNullable<PostState['outcome']>): void => {
      // A newer POST, or a forgotten rule, makes this answer stale.
      if (this.rules.get(ptrKey)?.get(action.ruleName)?.post !== post) return;
      post.outcome = outcome;
      this.changed(ptrKey);
    };
    this.caller
      .post({ url: action.url, caBundle: action.caBundle, namespace: namespaceOf(ptrKey), signal: this.abort.signal }, action.body)
      .then((raw) => settle({ kind: 'response', response: parseWebhookResponse(raw) }))
      .catch((err: unknown) => {
        // The detail (address, transport error) stays in this log; the tenant sees the class.
        const detail = err instanceof Error ? err.message : String(err);
        this.logger.debug({ ptr: ptrKey, rule: action.ruleName, traceId: action.traceId, err: detail }, 'webhook call failed');
        settle({ kind: 'error', message: tenantText(err) });
      });
  }

  private registerPoll(ptrKey: string, action: Extract<WebhookAction, { type: 'registerPoll' }>): void {
    const e = this.entry(ptrKey, action.ruleName);
    e.polls.get(action.taskId)?.cancel();
    const task = new PollTask({
      taskId: action.taskId,
      namespace: namespaceOf(ptrKey),
      pods: action.pods,
      poll: action.poll,
      beginMs: action.beginMs,
      caller: this.caller,
      clock: this.clock,
      onChange: () => this.changed(ptrKey),
      onDiscard: () => {
        if (e.polls.get(action.taskId) === task) e.polls.delete(action.taskId);
      },
    });
    e.polls.set(action.taskId, task);
  }

  private dropPoll(ptrKey: string, ruleName: string, taskId: string): void {
    const e = this.rules.get(ptrKey)?.get(ruleName);
    e?.polls.get(taskId)?.cancel();
    e?.polls.delete(taskId);
  }
}

/** Calls are shared out per namespace: the PodTransitionRule key's namespace part. */
function namespaceOf(ptrKey: string): string {
  return splitKey(ptrKey).namespace ?? '';
}
