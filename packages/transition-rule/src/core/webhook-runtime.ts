// The in-memory side of webhook rules, as plain data the pure engine reads: the POST of a rule in
// flight or answered, the retry window after a failure, and the poll tasks' latest results. The
// shell owns the real calls and timers and hands this snapshot to every round.
import type { WebhookRequestBody, WebhookResponse } from './protocol.ts';

export type PostOutcome = { kind: 'error'; message: string } | { kind: 'response'; response: WebhookResponse };

export interface PostState {
  traceId: string;
  /** Pods the request carried. */
  pods: readonly string[];
  /** Present once the call returned (or failed). */
  outcome?: PostOutcome;
}

export interface RetryState {
  /** No new POST for this rule before this time. */
  notBeforeMs: number;
  /** Consecutive failures (transport, HTTP status, body), for the backoff. */
  failures: number;
}

export interface PollSnapshot {
  taskId: string;
  /** finishedNames accumulated over every poll answer. */
  approved: readonly string[];
  /** The server answered success and finished: every pod of the task passes. */
  finished: boolean;
  /** Timed out or the server said stop. */
  stopped: boolean;
  message: string;
  /** Last query attempt (ms), if any. */
  lastQueryMs?: number;
}

export interface WebhookRuleRuntime {
  post?: PostState;
  retry?: RetryState;
  polls: ReadonlyMap<string, PollSnapshot>;
}

export const EMPTY_RUNTIME: WebhookRuleRuntime = { polls: new Map() };

export interface PollRegistration {
  url: string;
  caBundle?: string;
  queryKey: string;
  intervalMs: number;
  timeoutMs: number;
}

/** What the shell must do for a webhook rule; the engine never calls anything itself. */
export type WebhookAction =
  | { type: 'startPost'; ruleName: string; traceId: string; url: string; caBundle?: string; body: WebhookRequestBody }
  | { type: 'clearPost'; ruleName: string; traceId: string }
  | { type: 'setRetry'; ruleName: string; retry: RetryState | undefined }
  | { type: 'registerPoll'; ruleName: string; taskId: string; pods: readonly string[]; poll: PollRegistration; beginMs: number }
  | { type: 'dropPoll'; ruleName: string; taskId: string }
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string };
