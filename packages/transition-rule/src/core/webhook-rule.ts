// The webhook rule of one round (the seed protocol; failurePolicy and restarts as the README says), pure: sticky approvals,
// poll tasks carried over from status.ruleStates, the answer of the rule's last POST, and at most
// one new POST (for every pending pod not covered by a task). The POST and the polls happen in
// the shell; their results come back as `runtime` in a later round.
import {
  PTR_DEFAULT_POLL_INTERVAL_SECONDS,
  PTR_DEFAULT_POLL_QUERY_KEY,
  PTR_DEFAULT_POLL_TIMEOUT_SECONDS,
  type RuleState,
  type TaskState,
  type WebhookRule,
} from '@cloneset-suite/api-types';
import { ParameterError } from './parameters.ts';
import { RequestBoundError, buildRequestBody, type BuiltRequest } from './request-body.ts';
import { capText, stableReason } from './reason-text.ts';
import { podName } from './stage.ts';
import type { LifecycleStage, PodView, RuleOutcome } from './types.ts';
import type { PollRegistration, PostOutcome, WebhookAction, WebhookRuleRuntime } from './webhook-runtime.ts';

/** A rejection by the server (success false) is asked again after this long. */
export const REJECTED_RETRY_MS = 5_000;
/** Failed calls back off from 1 s, doubling, up to 5 min. */
export const FAILURE_BACKOFF_BASE_MS = 1_000;
export const FAILURE_BACKOFF_MAX_MS = 300_000;
/** Finished tasks stay in status history this long after their last activity. */
export const HISTORY_RETENTION_MS = 10 * 60_000;
export const WEBHOOK_FAILURE_IGNORED_REASON = 'WebhookFailureIgnored';
/** Event reason on the PodTransitionRule when a rule fails and holds pods (also invalid rules). */
export const RULE_ERROR_REASON = 'RuleError';

export interface WebhookRuleInput {
  namespace: string;
  ptrName: string;
  ruleName: string;
  stage: LifecycleStage;
  webhook: WebhookRule;
  /** Pods this rule evaluates (full objects: parameters read them). */
  subjects: readonly PodView[];
  passedBefore: (podName: string) => boolean;
  previousReason: (podName: string) => string | undefined;
  previousState: RuleState | undefined;
  runtime: WebhookRuleRuntime;
  nowMs: number;
  newTraceId: () => string;
}

export interface WebhookRuleResult extends RuleOutcome {
  ruleState: RuleState;
  actions: WebhookAction[];
  requeueAfterMs?: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function failureBackoffMs(failures: number): number {
  return Math.min(FAILURE_BACKOFF_MAX_MS, FAILURE_BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * The poll settings of a rule, with admission's defaults; undefined without poll config. The
 * query key is `task-id` unless rawQueryKey names another, for `poll` and `async` answers alike:
 * Kuperator's code does so (its documentation says `trace-id` for async), and webhook servers
 * written for it read `task-id`.
 */
export function pollRegistration(webhook: WebhookRule): PollRegistration | undefined {
  const poll = webhook.clientConfig.poll;
  if (!poll?.url) return undefined;
  return {
    url: poll.url,
    ...(poll.caBundle ? { caBundle: poll.caBundle } : {}),
    queryKey: poll.rawQueryKey || PTR_DEFAULT_POLL_QUERY_KEY,
    intervalMs: (poll.intervalSeconds ?? PTR_DEFAULT_POLL_INTERVAL_SECONDS) * 1000,
    timeoutMs: (poll.timeoutSeconds ?? PTR_DEFAULT_POLL_TIMEOUT_SECONDS) * 1000,
  };
}

class Round {
  readonly passed = new Set<string>();
  readonly rejected = new Map<string, string>();
  readonly actions: WebhookAction[] = [];
  readonly tasks: TaskState[] = [];
  readonly history: TaskState[] = [];
  requeueAfterMs: number | undefined;
  readonly input: WebhookRuleInput;
  constructor(input: WebhookRuleInput) {
    this.input = input;
  }

  get where(): string {
    return `${this.input.namespace}/${this.input.ptrName}/${this.input.ruleName}`;
  }
  pass(name: string): void {
    this.passed.add(name);
    this.rejected.delete(name);
  }
  /**
   * Rejects the pod. A reason carrying the traceId of a call keeps last round's text when only the
   * traceId differs, so a retried call with the same answer rewrites nothing.
   */
  reject(name: string, reason: string, traceId?: string): void {
    if (this.passed.has(name)) return;
    const capped = capText(reason);
    this.rejected.set(name, traceId === undefined ? capped : stableReason(this.input.previousReason(name), capped, traceId));
  }
  /**
   * While a call is out. When it retries a call the server rejected or that failed, the pod keeps
   * the reason that answer gave (it still holds until the new answer), so each retry costs no write.
   */
  rejectWhileAsking(name: string, traceId: string): void {
    const previous = this.input.runtime.retry ? this.input.previousReason(name) : undefined;
    this.reject(name, previous ?? `waiting for webhook response, traceId ${traceId}`, traceId);
  }
  requeue(ms: number): void {
    this.requeueAfterMs = this.requeueAfterMs === undefined ? ms : Math.min(this.requeueAfterMs, ms);
  }
  retire(task: TaskState, message?: string): void {
    this.history.push({ ...task, processing: [], lastTime: iso(this.input.nowMs), ...(message !== undefined ? { message: capText(message) } : {}) });
    this.actions.push({ type: 'dropPoll', ruleName: this.input.ruleName, taskId: task.taskId });
  }
}

/** Carries the previous round's poll tasks forward, as Kuperator's webhook rule does; returns the pods they still cover. */
function carryTasks(round: Round, pending: Set<string>): Set<string> {
  const { input } = round;
  const covered = new Set<string>();
  for (const task of input.previousState?.webhookStatus?.taskStates ?? []) {
    for (const name of task.approved ?? []) if (pending.has(name)) round.pass(name);
    const live = (task.processing ?? []).filter((n) => pending.has(n) && !round.passed.has(n));
    if (live.length === 0) {
      round.retire(task);
      continue;
    }
    const snapshot = input.runtime.polls.get(task.taskId);
    if (!snapshot) {
      const poll = pollRegistration(input.webhook);
      if (!poll) {
        round.retire(task, 'poll configuration removed');
        continue;
      }
      // Restart: poll tasks survive it (README, PodTransitionRule): the task is re-registered from
      // status with a new timeout window.
      round.actions.push({ type: 'registerPoll', ruleName: input.ruleName, taskId: task.taskId, pods: live, poll, beginMs: input.nowMs });
      for (const n of live) {
        round.reject(n, 'polling result not found, try polling again');
        covered.add(n);
      }
      round.tasks.push({ ...task, processing: live, beginTime: iso(input.nowMs) });
      continue;
    }
    if (snapshot.finished) {
      for (const n of live) round.pass(n);
      round.retire(task, snapshot.message);
      continue;
    }
    // The task's own pods the server has finished so far: approved only grows while the task runs
    // (a pod that passed stays listed), processing only shrinks.
    const carried = new Set([...(task.processing ?? []), ...(task.approved ?? [])]);
    const approved = new Set([...(task.approved ?? []), ...snapshot.approved.filter((n) => carried.has(n))]);
    const stillProcessing = live.filter((n) => !approved.has(n));
    for (const n of live) if (approved.has(n)) round.pass(n);
    const updated: TaskState = {
      ...task,
      processing: stillProcessing,
      approved: [...approved].sort(),
      ...(snapshot.lastQueryMs !== undefined ? { lastTime: iso(snapshot.lastQueryMs) } : {}),
      ...(snapshot.message ? { message: capText(snapshot.message) } : {}),
    };
    if (snapshot.stopped) {
      // Pods the stopped task did not approve are asked again with a new POST this round.
      round.retire(updated, snapshot.message);
      continue;
    }
    if (stillProcessing.length === 0) {
      round.retire(updated, snapshot.message);
      continue;
    }
    // The same words every poll: the server's message and the progress live in the task's
    // status, so a running task costs no pod write per poll (the shared write budget).
    for (const n of stillProcessing) {
      round.reject(n, `polling task ${task.taskId} is running (its progress is in status.ruleStates)`);
      covered.add(n);
    }
    round.tasks.push(updated);
  }
  return covered;
}

/** Applies the answer of the rule's last POST to the pods it carried (the pods no task covers). */
function applyOutcome(round: Round, sent: readonly string[], traceId: string, outcome: PostOutcome): void {
  const { input } = round;
  const retryClear = (): void => void round.actions.push({ type: 'setRetry', ruleName: input.ruleName, retry: undefined });
  if (outcome.kind === 'error') {
    if (input.webhook.failurePolicy === 'Ignore') {
      for (const n of sent) round.pass(n);
      retryClear();
      round.actions.push({
        type: 'event',
        eventType: 'Warning',
        reason: WEBHOOK_FAILURE_IGNORED_REASON,
        message: `webhook ${input.ruleName} failed (${outcome.message}), traceId ${traceId}; failurePolicy Ignore lets ${sent.join(', ')} pass`,
      });
      return;
    }
    const failures = (input.runtime.retry?.failures ?? 0) + 1;
    const wait = failureBackoffMs(failures);
    for (const n of sent) round.reject(n, `Fail to do webhook request ${round.where}, ${outcome.message}, traceId ${traceId}`, traceId);
    // No traceId in the note: the recorder counts repeats of one note instead of writing new Events.
    round.actions.push({
      type: 'event',
      eventType: 'Warning',
      reason: RULE_ERROR_REASON,
      message: capText(`rule ${input.ruleName}: webhook call failed: ${outcome.message}; failurePolicy Fail holds ${sent.length} pod(s) until a call succeeds`),
    });
    round.actions.push({ type: 'setRetry', ruleName: input.ruleName, retry: { notBeforeMs: input.nowMs + wait, failures } });
    round.requeue(wait);
    return;
  }
  const res = outcome.response;
  const finished = new Set(res.finishedNames);
  if (!res.success) {
    for (const n of sent) {
      if (finished.has(n)) round.pass(n);
      else round.reject(n, `Webhook check ${round.where} rejected, traceId ${traceId}, taskId ${res.taskId}`, traceId);
    }
    round.actions.push({ type: 'setRetry', ruleName: input.ruleName, retry: { notBeforeMs: input.nowMs + REJECTED_RETRY_MS, failures: 0 } });
    round.requeue(REJECTED_RETRY_MS);
    return;
  }
  retryClear();
  if (!res.poll && !res.async) {
    for (const n of sent) round.pass(n);
    return;
  }
  // An `async` answer may name no task: it is then polled by the traceId we sent (seed 000).
  const isAsync = !res.poll && res.async;
  const taskId = res.taskId || res.traceId || (isAsync ? traceId : '');
  const poll = pollRegistration(input.webhook);
  if (!taskId || !poll) {
    const why = !taskId ? 'Invalid empty taskID' : 'no poll config for a polling answer';
    for (const n of sent) round.reject(n, `Webhook check ${round.where} failed, traceId ${traceId}: ${why}`, traceId);
    round.actions.push({ type: 'setRetry', ruleName: input.ruleName, retry: { notBeforeMs: input.nowMs + REJECTED_RETRY_MS, failures: 0 } });
    round.requeue(REJECTED_RETRY_MS);
    return;
  }
  const processing = sent.filter((n) => !finished.has(n));
  const approved = sent.filter((n) => finished.has(n));
  for (const n of approved) round.pass(n);
  if (processing.length === 0) return;
  for (const n of processing) round.reject(n, `Polling task ${taskId} initialized, traceId ${traceId}`, traceId);
  round.tasks.push({ taskId, processing, approved, beginTime: iso(input.nowMs), lastTime: iso(input.nowMs), ...(res.message ? { message: capText(res.message) } : {}) });
  round.actions.push({ type: 'registerPoll', ruleName: input.ruleName, taskId, pods: processing, poll, beginMs: input.nowMs });
}

/** Why a pod not in the call out waits: the call carries at most so many pods or bytes. */
export const WAITING_FOR_NEXT_CALL = 'waiting for the next webhook call (one call carries a bounded number of pods)';

/**
 * A request past a bound is never sent, whatever the failurePolicy: the rule holds the pods,
 * says why in a RuleError Event, and tries again with backoff (the pods or the rule may change).
 */
function failRequest(round: Round, pods: readonly PodView[], traceId: string, message: string): void {
  const { input } = round;
  const failures = (input.runtime.retry?.failures ?? 0) + 1;
  const wait = failureBackoffMs(failures);
  for (const pod of pods) round.reject(podName(pod), `Fail to build the webhook request ${round.where}: ${message}, traceId ${traceId}`, traceId);
  round.actions.push({ type: 'event', eventType: 'Warning', reason: RULE_ERROR_REASON, message: capText(`rule ${input.ruleName}: cannot build the webhook request: ${message}`) });
  round.actions.push({ type: 'setRetry', ruleName: input.ruleName, retry: { notBeforeMs: input.nowMs + wait, failures } });
  round.requeue(wait);
}

/** Builds the POST for the pods still waiting (seed 000 request shape), bounded (request-body.ts). */
function startPost(round: Round, pods: readonly PodView[]): void {
  const { input } = round;
  const traceId = input.newTraceId();
  let built: BuiltRequest;
  try {
    built = buildRequestBody({ traceId, stage: input.stage, ruleName: input.ruleName, pods, parameters: input.webhook.parameters });
  } catch (err) {
    if (err instanceof RequestBoundError) {
      failRequest(round, pods, traceId, err.message);
      return;
    }
    if (!(err instanceof ParameterError)) throw err;
    applyOutcome(round, pods.map(podName), traceId, { kind: 'error', message: `cannot build the request: ${err.message}` });
    return;
  }
  const { url, caBundle } = input.webhook.clientConfig;
  round.actions.push({ type: 'startPost', ruleName: input.ruleName, traceId, url, ...(caBundle ? { caBundle } : {}), body: built.body });
  for (const r of built.body.resources) round.rejectWhileAsking(r.name, traceId);
  for (const pod of built.deferred) round.reject(podName(pod), input.previousReason(podName(pod)) ?? WAITING_FOR_NEXT_CALL);
}

export function evaluateWebhookRule(input: WebhookRuleInput): WebhookRuleResult {
  const round = new Round(input);
  const pending = new Set<string>();
  for (const pod of input.subjects) {
    const name = podName(pod);
    if (input.passedBefore(name)) round.pass(name);
    else pending.add(name);
  }
  const covered = carryTasks(round, pending);
  let waiting = input.subjects.filter((p) => pending.has(podName(p)) && !round.passed.has(podName(p)) && !covered.has(podName(p)));

  const post = input.runtime.post;
  if (post?.outcome) {
    const waitingNames = new Set(waiting.map(podName));
    const sent = post.pods.filter((n) => waitingNames.has(n));
    applyOutcome(round, sent, post.traceId, post.outcome);
    round.actions.push({ type: 'clearPost', ruleName: input.ruleName, traceId: post.traceId });
    const answered = new Set(sent);
    waiting = waiting.filter((p) => !answered.has(podName(p)));
    // Pods that arrived while the call was out are asked in the next round.
    if (waiting.length > 0) round.requeue(0);
    for (const p of waiting) round.reject(podName(p), input.previousReason(podName(p)) ?? 'waiting for the next webhook round');
  } else if (post) {
    const inCall = new Set(post.pods);
    for (const p of waiting) {
      if (inCall.has(podName(p))) round.rejectWhileAsking(podName(p), post.traceId);
      else round.reject(podName(p), input.previousReason(podName(p)) ?? WAITING_FOR_NEXT_CALL);
    }
  } else if (waiting.length > 0) {
    const retry = input.runtime.retry;
    if (retry && retry.notBeforeMs > input.nowMs) {
      for (const p of waiting) round.reject(podName(p), input.previousReason(podName(p)) ?? 'waiting to retry the webhook');
      round.requeue(retry.notBeforeMs - input.nowMs);
    } else {
      startPost(round, waiting);
    }
  }

  const keepSince = input.nowMs - HISTORY_RETENTION_MS;
  const oldHistory = (input.previousState?.webhookStatus?.history ?? []).filter((t) => Date.parse(t.lastTime ?? t.beginTime ?? '') >= keepSince);
  const history = [...oldHistory, ...round.history];
  const ruleState: RuleState = {
    name: input.ruleName,
    webhookStatus: {
      ...(round.tasks.length > 0 ? { taskStates: round.tasks } : {}),
      ...(history.length > 0 ? { history } : {}),
    },
  };
  return {
    passed: input.subjects.map(podName).filter((n) => round.passed.has(n)),
    rejected: round.rejected,
    ruleState,
    actions: round.actions,
    requeueAfterMs: round.requeueAfterMs,
  };
}
