// Outbound calls of webhook rules (decisions.md 2, 6, 8): JSON over http(s) with a whole-call
// timeout, a response cap, the rule's caBundle as the only trusted roots, at most N calls at once
// across every PodTransitionRule, and an optional URL allow-list. Redirects are not followed (a
// 3xx is an error), so a server cannot bounce the controller to an address the list forbids.
// Every failure is a WebhookCallError whose message names the cause; nothing here throws anything else.
import PQueue from 'p-queue';
import { Agent, request, type Dispatcher } from 'undici';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_CALLS = 16;

export interface WebhookClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  maxConcurrentCalls?: number;
  /** URL prefixes calls may target; empty allows any URL. */
  allowedPrefixes?: readonly string[];
}

export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
}

/** caBundle values meaning "no bundle" upstream: empty, or a base64 newline. */
const NO_BUNDLE = new Set(['', 'Cg==']);

/** The port the controller uses: a POST with a JSON body and a GET, each answering parsed JSON. */
export interface WebhookCaller {
  post(url: string, caBundle: string | undefined, body: unknown, signal?: AbortSignal): Promise<unknown>;
  get(url: string, caBundle: string | undefined, signal?: AbortSignal): Promise<unknown>;
}

export class WebhookClient implements WebhookCaller {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly allowedPrefixes: readonly string[];
  private readonly limiter: PQueue;
  private readonly agents = new Map<string, Agent>();

  constructor(options: WebhookClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.allowedPrefixes = options.allowedPrefixes ?? [];
    this.limiter = new PQueue({ concurrency: options.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS });
  }

  /** Calls running or waiting for a slot. */
  get pending(): number {
    return this.limiter.pending + this.limiter.size;
  }

  post(url: string, caBundle: string | undefined, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', url, caBundle, JSON.stringify(body), signal);
  }

  get(url: string, caBundle: string | undefined, signal?: AbortSignal): Promise<unknown> {
    return this.call('GET', url, caBundle, undefined, signal);
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.allSettled(agents.map((a) => a.close()));
  }

  private async call(method: 'GET' | 'POST', url: string, caBundle: string | undefined, body: string | undefined, signal?: AbortSignal): Promise<unknown> {
    if (this.allowedPrefixes.length > 0 && !this.allowedPrefixes.some((p) => url.startsWith(p))) {
      throw new WebhookCallError(`URL ${url} is not allowed by --transition-rule-webhook-allowed-prefixes`);
    }
    const result = await this.limiter.add(() => this.send(method, url, caBundle, body, signal));
    return result;
  }

  private dispatcher(caBundle: string | undefined): Dispatcher {
    const key = caBundle && !NO_BUNDLE.has(caBundle) ? caBundle : '';
    let agent = this.agents.get(key);
    if (!agent) {
      const ca = key ? Buffer.from(key, 'base64').toString('utf8') : undefined;
      // HTTP/1.1 only, as the apiserver transport: undici 8's HTTP/2 client can end the process
      // with an unhandled socket error when a server idles out or sends GOAWAY.
      agent = new Agent({ connect: ca ? { ca } : {}, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, allowH2: false });
      this.agents.set(key, agent);
    }
    return agent;
  }

  private async send(method: 'GET' | 'POST', url: string, caBundle: string | undefined, body: string | undefined, outer?: AbortSignal): Promise<unknown> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = outer ? AbortSignal.any([outer, deadline]) : deadline;
    let text: string;
    let status: number;
    try {
      const res = await request(url, {
        method,
        dispatcher: this.dispatcher(caBundle),
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
      throw new WebhookCallError(`${method} ${url}: HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new WebhookCallError(`${method} ${url}: response is not JSON: ${(err as Error).message}`);
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
