// Outbound calls of webhook rules (decisions.md 2, 6, 8): JSON over http(s) with a whole-call
// timeout, a response cap, the rule's caBundle as the only trusted roots, at most N calls at once
// with a fair share per namespace, an optional allow-list of origins, and no link-local or
// cloud-metadata address unless the operator allows them (checked on the address dialled).
// Redirects are not followed (a 3xx is an error), so a server cannot bounce the controller to an
// address the policy forbids. Every failure is a WebhookCallError whose message names the cause,
// short and free of control characters (it is copied into the rule status); nothing here throws
// anything else.
import type { LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { literalAddress, parseAllowedOrigin, urlAllowed, isLinkLocalAddress, type AllowedOrigin } from '../core/outbound-policy.ts';
import { capText, stripControlCharacters } from '../core/reason-text.ts';
import { FairLimiter } from './fair-limiter.ts';
import { forbiddenAddress, guardedConnector } from './guarded-connector.ts';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;
/** One namespace's calls at once: its slow or silent webhooks leave the other slots to the rest. */
export const DEFAULT_MAX_CONCURRENT_CALLS_PER_NAMESPACE = 4;
/** Longest error text (bytes); the body of an error answer gets at most a quarter of it. */
const MAX_ERROR_BYTES = 512;
const MAX_ERROR_BODY_BYTES = 128;

export interface WebhookClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxConcurrentCalls?: number;
  maxConcurrentCallsPerNamespace?: number;
  /** Origins (`scheme://host[:port]`, optionally with a path) calls may target; empty allows any. */
  allowedOrigins?: readonly string[];
  /** Allow link-local and cloud-metadata addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254). */
  allowLinkLocal?: boolean;
  /** Name resolution for the dial check (tests); the system resolver by default. */
  lookup?: LookupFunction;
}

export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
  constructor(message: string) {
    super(capText(stripControlCharacters(message), MAX_ERROR_BYTES));
  }
}

/** caBundle values meaning "no bundle" upstream: empty, or a base64 newline. */
const NO_BUNDLE = new Set(['', 'Cg==']);

/** One outbound call: where, with which roots, on behalf of which namespace (its fair share). */
export interface WebhookCall {
  url: string;
  caBundle?: string | undefined;
  namespace: string;
  signal?: AbortSignal;
}

/** The port the controller uses: a POST with a JSON body and a GET, each answering parsed JSON. */
export interface WebhookCaller {
  post(call: WebhookCall, body: unknown): Promise<unknown>;
  get(call: WebhookCall): Promise<unknown>;
  /** Ends the caller's connections; called once when the controller stops. */
  close(): Promise<void>;
}

export class WebhookClient implements WebhookCaller {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly allowed: readonly AllowedOrigin[];
  private readonly allowLinkLocal: boolean;
  private readonly lookup: LookupFunction | undefined;
  private readonly limiter: FairLimiter;
  private readonly agents = new Map<string, Agent>();

  constructor(options: WebhookClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.allowed = (options.allowedOrigins ?? []).map(parseAllowedOrigin);
    this.allowLinkLocal = options.allowLinkLocal ?? false;
    this.lookup = options.lookup;
    this.limiter = new FairLimiter({
      total: options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
      perKey: options.maxConcurrentCallsPerNamespace ?? DEFAULT_MAX_CONCURRENT_CALLS_PER_NAMESPACE,
    });
  }

  /** Calls running or waiting for a slot. */
  get pending(): number {
    return this.limiter.pending;
  }

  post(call: WebhookCall, body: unknown): Promise<unknown> {
    return this.call('POST', call, JSON.stringify(body));
  }

  get(call: WebhookCall): Promise<unknown> {
    return this.call('GET', call, undefined);
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(agents.map((a) => a.close()));
  }

  private async call(method: 'GET' | 'POST', call: WebhookCall, body: string | undefined): Promise<unknown> {
    if (!urlAllowed(call.url, this.allowed)) {
      throw new WebhookCallError(`URL ${call.url} is not allowed by --transition-rule-webhook-allowed-prefixes`);
    }
    const literal = literalAddress(call.url);
    if (!this.allowLinkLocal && literal !== undefined && isLinkLocalAddress(literal)) {
      throw new WebhookCallError(`${method} ${call.url}: ${forbiddenAddress(literal, literal).message}`);
    }
    return this.limiter.run(call.namespace, () => this.send(method, call, body), call.signal).catch((err: unknown) => {
      if (err instanceof WebhookCallError) throw err;
      throw new WebhookCallError(`${method} ${call.url}: ${describe(err)}`);
    });
  }

  private dispatcher(caBundle: string | undefined): Dispatcher {
    const key = caBundle && !NO_BUNDLE.has(caBundle) ? caBundle : '';
    let agent = this.agents.get(key);
    if (!agent) {
      const ca = key ? Buffer.from(key, 'base64').toString('utf8') : undefined;
      const connect = guardedConnector({ ...(ca ? { ca } : {}), allowLinkLocal: this.allowLinkLocal, ...(this.lookup ? { lookup: this.lookup } : {}), connectTimeoutMs: this.timeoutMs });
      // HTTP/1.1 only, as the apiserver transport: undici 8's HTTP/2 client can end the process
      // with an unhandled socket error when a server idles out or sends GOAWAY.
      agent = new Agent({ connect, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, allowH2: false });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private async send(method: 'GET' | 'POST', call: WebhookCall, body: string | undefined): Promise<unknown> {
    const { url } = call;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline;
    let text: string;
    let status: number;
    try {
      const res = await request(url, {
        method,
        dispatcher: this.dispatcher(call.caBundle),
        signal,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body !== undefined ? { body } : {}),
      });
      status = res.statusCode;
      text = await readCapped(res.body, this.maxResponseBytes);
    } catch (err) {
      if (err instanceof WebhookCallError) throw new WebhookCallError(`${method} ${url}: ${err.message}`);
      if (deadline.aborted) throw new WebhookCallError(`${method} ${url}: timed out after ${this.timeoutMs / 1000}s`);
      throw new WebhookCallError(`${method} ${url}: ${describe(err)}`);
    }
    if (status < 200 || status > 299) {
      const shown = capText(stripControlCharacters(text).trim(), MAX_ERROR_BODY_BYTES);
      throw new WebhookCallError(`${method} ${url}: HTTP ${status}${shown ? `: ${shown}` : ''}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      // The parser quotes the body in its message: keep only the first line's gist.
      throw new WebhookCallError(`${method} ${url}: response is not JSON: ${capText((err as Error).message, MAX_ERROR_BODY_BYTES)}`);
    }
  }
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > cap) {
      body.destroy();
      throw new WebhookCallError(`response body exceeds ${cap} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  const code = (err as Error & { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
  const causeMsg = cause instanceof Error && cause.message !== err.message ? ` (${cause.message})` : '';
  return `${code ? `${code}: ` : ''}${err.message}${causeMsg}`;
}
