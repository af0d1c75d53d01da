// Outbound calls of webhook rules: JSON over http(s) with a whole-call timeout, a response cap, a
// request cap, the rule's caBundle as the only trusted roots, at most N calls at once with a fair
// share per namespace, an optional allow-list of origins, and the address policy
// (address-policy.ts) checked on the URL and on the address dialled. Redirects are not followed
// (a 3xx is an error), so a server cannot bounce the controller to an address the policy forbids.
// Every failure is a WebhookCallError carrying a fixed class (call-failure.ts) for what tenants
// see, and a message naming the cause for the log, short and free of control characters, and
// never holding bytes of the remote body; nothing here throws anything else.
import type { LookupFunction } from 'node:net';
import { caBundleProblem } from '@cloneset-suite/api-types';
import { Agent, request, type Dispatcher } from 'undici';
import { addressPolicy, addressRefusal, type AddressPolicy } from '../core/address-policy.ts';
import type { CallFailure, FailureClass } from '../core/call-failure.ts';
import { literalAddress, parseAllowedOrigin, urlAllowed, type AllowedOrigin } from '../core/outbound-policy.ts';
import { capText, stripControlCharacters } from '../core/reason-text.ts';
import { MAX_REQUEST_BODY_BYTES } from '../core/request-body.ts';
import { FairLimiter } from './fair-limiter.ts';
import { guardedConnector } from './guarded-connector.ts';
import { TrustAgents } from './trust-agents.ts';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;
/** One namespace's calls at once: its slow or silent webhooks leave the other slots to the rest. */
export const DEFAULT_MAX_CONCURRENT_CALLS_PER_NAMESPACE = 4;
/** Longest error text (bytes). */
const MAX_ERROR_BYTES = 512;

export interface WebhookClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxRequestBytes?: number;
  maxConcurrentCalls?: number;
  maxConcurrentCallsPerNamespace?: number;
  /** Origins (`scheme://host[:port]`, optionally with a path) calls may target; empty allows any. */
  allowedOrigins?: readonly string[];
  /** Address classes allowed besides public and private ones (address-policy.ts ADDRESS_CLASSES). */
  allowAddresses?: readonly string[];
  /** Private addresses callable (CIDRs); every private range by default. */
  privateCidrs?: readonly string[];
  /** Name resolution for the dial check (tests); the system resolver by default. */
  lookup?: LookupFunction;
}

export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
  readonly failure: CallFailure;
  constructor(failure: CallFailure | FailureClass, message: string) {
    super(capText(stripControlCharacters(message), MAX_ERROR_BYTES));
    this.failure = typeof failure === 'string' ? { class: failure } : failure;
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
  private readonly maxRequestBytes: number;
  private readonly allowed: readonly AllowedOrigin[];
  private readonly policy: AddressPolicy;
  private readonly limiter: FairLimiter;
  private readonly agents: TrustAgents;

  constructor(options: WebhookClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BODY_BYTES;
    this.allowed = (options.allowedOrigins ?? []).map(parseAllowedOrigin);
    this.policy = addressPolicy({ allow: options.allowAddresses, privateCidrs: options.privateCidrs });
    this.limiter = new FairLimiter({
      total: options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
      perKey: options.maxConcurrentCallsPerNamespace ?? DEFAULT_MAX_CONCURRENT_CALLS_PER_NAMESPACE,
    });
    const lookup = options.lookup;
    this.agents = new TrustAgents((ca) => {
      const connect = guardedConnector({ ca, policy: this.policy, lookup, connectTimeoutMs: this.timeoutMs });
      // HTTP/1.1 only, as the apiserver transport: undici 8's HTTP/2 client can end the process
      // with an unhandled socket error when a server idles out or sends GOAWAY.
      return new Agent({ connect, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, allowH2: false });
    });
  }

  /** Calls running or waiting for a slot. */
  get pending(): number {
    return this.limiter.pending;
  }

  /** Agents kept (one per distinct caBundle recently used). */
  get agentCount(): number {
    return this.agents.size;
  }

  post(call: WebhookCall, body: unknown): Promise<unknown> {
    const text = JSON.stringify(body);
    if (Buffer.byteLength(text) > this.maxRequestBytes) {
      return Promise.reject(new WebhookCallError('request-too-large', `POST ${call.url}: request body exceeds ${this.maxRequestBytes} bytes`));
    }
    return this.call('POST', call, text);
  }

  get(call: WebhookCall): Promise<unknown> {
    return this.call('GET', call, undefined);
  }

  close(): Promise<void> {
    return this.agents.close();
  }

  private async call(method: 'GET' | 'POST', call: WebhookCall, body: string | undefined): Promise<unknown> {
    if (!urlAllowed(call.url, this.allowed)) {
      throw new WebhookCallError('url-not-allowed', `URL ${call.url} is not allowed by --transition-rule-webhook-allowed-prefixes`);
    }
    const literal = literalAddress(call.url);
    const refusal = literal === undefined ? undefined : addressRefusal(literal, this.policy);
    if (refusal !== undefined) throw new WebhookCallError('address-refused', `${method} ${call.url}: ${refusal}`);
    const caBundle = call.caBundle && !NO_BUNDLE.has(call.caBundle) ? call.caBundle : undefined;
    const badBundle = caBundleProblem(caBundle);
    if (badBundle !== undefined) throw new WebhookCallError('invalid-ca-bundle', `${method} ${call.url}: ${badBundle}`);
    return this.limiter.run(call.namespace, () => this.send(method, call, caBundle, body), call.signal).catch((err: unknown) => {
      if (err instanceof WebhookCallError) throw err;
      throw new WebhookCallError(classOf(err), `${method} ${call.url}: ${describe(err)}`);
    });
  }

  private async send(method: 'GET' | 'POST', call: WebhookCall, caBundle: string | undefined, body: string | undefined): Promise<unknown> {
    const { url } = call;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline;
    let text: string;
    let status: number;
    try {
      const res = await request(url, {
        method,
        dispatcher: this.agents.get(caBundle === undefined ? undefined : Buffer.from(caBundle, 'base64').toString('utf8')),
        signal,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(body !== undefined ? { body } : {}),
      });
      status = res.statusCode;
      if (status < 200 || status > 299) {
        // Not a byte of the answer is shown or kept: dump discards it (bounded) and frees the socket.
        await res.body.dump().catch(() => undefined);
        throw new WebhookCallError({ class: 'http-status', status }, `${method} ${url}: HTTP ${status}`);
      }
      text = await readCapped(res.body, this.maxResponseBytes);
    } catch (err) {
      if (err instanceof WebhookCallError) throw new WebhookCallError(err.failure, err.message.startsWith(`${method} `) ? err.message : `${method} ${url}: ${err.message}`);
      if (deadline.aborted) throw new WebhookCallError('timeout', `${method} ${url}: timed out after ${this.timeoutMs / 1000}s`);
      throw new WebhookCallError(classOf(err), `${method} ${url}: ${describe(err)}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // The parser quotes the body in its message: say only that it is not JSON.
      throw new WebhookCallError('response-not-json', `${method} ${url}: response is not JSON`);
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
      throw new WebhookCallError('response-too-large', `response body exceeds ${cap} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function codeOf(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const cause = (err as Error & { cause?: unknown }).cause;
  return (err as Error & { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
}

function classOf(err: unknown): FailureClass {
  const code = codeOf(err) ?? '';
  if (code === 'EFORBIDDENADDRESS') return 'address-refused';
  if (/TIMEOUT/i.test(code)) return 'timeout';
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO|DEPTH_ZERO|ERR_OSSL/.test(code)) return 'tls-failed';
  return 'connection-failed';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  const code = codeOf(err);
  const causeMsg = cause instanceof Error && cause.message !== err.message ? ` (${cause.message})` : '';
  return `${code ? `${code}: ` : ''}${err.message}${causeMsg}`;
}
