// The webhook protocol of seed 000: the POST body sent for a rule, and the two responses (to the
// POST and to a poll GET), parsed strictly enough that garbage is an error and not a verdict.
import { capText, stripControlCharacters, utf8Bytes } from './reason-text.ts';

export interface WebhookResource {
  apiVersion: 'v1';
  kind: 'Pod';
  name: string;
  parameters?: Record<string, string>;
}

export interface WebhookRequestBody {
  traceId: string;
  stage: string;
  ruleName: string;
  resources: WebhookResource[];
}

export interface WebhookResponse {
  success: boolean;
  message: string;
  finishedNames: string[];
  poll: boolean;
  /** Deprecated spelling of poll (polled under the same task-id key, as Kuperator's code does). */
  async: boolean;
  taskId: string;
  traceId: string;
}

export interface PollResponse {
  success: boolean;
  message: string;
  finished: boolean;
  finishedNames: string[];
  stop: boolean;
}

export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

function object(raw: unknown, what: string): Record<string, unknown> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ProtocolError(`${what} is not a JSON object`);
  return raw as Record<string, unknown>;
}

function flag(o: Record<string, unknown>, key: string, what: string): boolean {
  const v = o[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ProtocolError(`${what}: ${key} must be a boolean`);
  return v;
}

function text(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A message is shown in status and annotations: capped and stripped of control characters. */
function message(o: Record<string, unknown>): string {
  return capText(stripControlCharacters(text(o, 'message')));
}

/** Longest task or trace id accepted: an id is stored in status and sent back, so it cannot be cut. */
export const MAX_ID_BYTES = 256;

function id(o: Record<string, unknown>, key: string, what: string): string {
  const v = text(o, key);
  if (utf8Bytes(v) > MAX_ID_BYTES) throw new ProtocolError(`${what}: ${key} is longer than ${MAX_ID_BYTES} bytes`);
  return v;
}

function names(o: Record<string, unknown>, what: string): string[] {
  const v = o.finishedNames;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((n) => typeof n === 'string')) throw new ProtocolError(`${what}: finishedNames must be a list of strings`);
  return v;
}

export function parseWebhookResponse(raw: unknown): WebhookResponse {
  const what = 'webhook response';
  const o = object(raw, what);
  if (typeof o.success !== 'boolean') throw new ProtocolError(`${what}: success must be a boolean`);
  return {
    success: o.success,
    message: message(o),
    finishedNames: names(o, what),
    poll: flag(o, 'poll', what),
    async: flag(o, 'async', what),
    taskId: id(o, 'taskId', what),
    traceId: id(o, 'traceId', what),
  };
}

export function parsePollResponse(raw: unknown): PollResponse {
  const what = 'poll response';
  const o = object(raw, what);
  return {
    success: flag(o, 'success', what),
    message: message(o),
    finished: flag(o, 'finished', what),
    finishedNames: names(o, what),
    stop: flag(o, 'stop', what),
  };
}
