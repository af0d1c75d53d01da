// HTTP to the apiserver. Auth and TLS material (tokens, client certs, exec/OIDC plugins,
// in-cluster) come from client-node's KubeConfig; the connection pool is ours: client-node builds
// a new undici Agent for every request, so nothing would be reused and each call would pay a TLS
// handshake. Per set of TLS material, requests share a bounded pool of kept-alive connections
// and watches get connections of their own; any GVR, patch type and streaming watch go through
// undici's `request` (lighter than its `fetch`: no WHATWG streams per call).
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, ProxyAgent, request, type Dispatcher } from 'undici';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryParams = Record<string, string | number | boolean | undefined>;

export interface HttpRequest {
  method: HttpMethod;
  /** Absolute API path, e.g. /api/v1/namespaces/default/pods. */
  path: string;
  query?: QueryParams;
  /** Serialized body. */
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
  /** A watch: held open for minutes, so it rides a connection outside the bounded request pool. */
  longRunning?: boolean;
}

export interface HttpResponse {
  status: number;
  header(name: string): string | null;
  text(): Promise<string>;
  /** The body as chunks, for streaming watches. */
  chunks(): AsyncIterable<Uint8Array>;
}

export interface Transport {
  /** host:port of the apiserver, the `host` label of rest_client metrics. */
  readonly host: string;
  /** Requests (watches aside) it sends at once; more wait in its queue. Unset: no bound. */
  readonly maxConcurrentRequests?: number;
  send(req: HttpRequest): Promise<HttpResponse>;
}

export function buildURL(server: string, path: string, query?: QueryParams): URL {
  const url = new URL(server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

/** TLS and proxy settings a connection is made with: a change needs a new pool. */
interface ConnectionSettings {
  ca?: RequestOptions['ca'];
  cert?: RequestOptions['cert'];
  key?: RequestOptions['key'];
  pfx?: RequestOptions['pfx'];
  passphrase?: string;
  rejectUnauthorized?: boolean;
  servername?: string;
}

export class KubeConfigTransport implements Transport {
  readonly host: string;
  readonly maxConcurrentRequests = REQUEST_CONNECTIONS;
  private readonly kubeConfig: KubeConfig;
  private readonly server: string;
  private readonly proxyUrl: string | undefined;
  private readonly userAgent: string;
  private pool: ConnectionPools | undefined;

  constructor(kubeConfig: KubeConfig, userAgent = 'cloneset-suite/kube-runtime') {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    if (cluster.proxyUrl?.startsWith('socks')) throw new Error(`kubeconfig cluster ${cluster.name}: socks proxies are not supported (proxy-url ${cluster.proxyUrl})`);
    if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
      throw new Error(`kubeconfig cluster ${cluster.name}: plain http needs insecure-skip-tls-verify (server ${cluster.server})`);
    }
    this.kubeConfig = kubeConfig;
    this.server = cluster.server;
    this.proxyUrl = cluster.proxyUrl;
    this.host = new URL(cluster.server).host;
    this.userAgent = userAgent;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const url = buildURL(this.server, req.path, req.query);
    // Re-applied per request: exec and token-file credentials rotate.
    const options: RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(options);
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': this.userAgent };
    for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name] = String(value);
    if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
    if (req.contentType) headers['Content-Type'] = req.contentType;
    const pools = this.poolsFor(options);
    const res = await request(url, {
      method: req.method,
      headers,
      dispatcher: req.longRunning ? pools.watches : pools.requests,
      ...(req.body !== undefined ? { body: req.body } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    });
    return {
      status: res.statusCode,
      header: (name) => headerValue(res.headers[name.toLowerCase()]),
      text: () => res.body.text(),
      chunks: () => res.body,
    };
  }

  /** The pools for these TLS settings; a rotated client certificate or CA gets fresh ones. */
  private poolsFor(options: RequestOptions): ConnectionPools {
    const settings: ConnectionSettings = {};
    for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const) {
      if (options[k] !== undefined) (settings as Record<string, unknown>)[k] = options[k];
    }
    if (this.pool && sameConnectionSettings(this.pool.settings, settings)) return this.pool;
    const previous = this.pool;
    // Keep-alive probes every 30 s, as client-go, so a dead connection is noticed.
    const connect = { ...settings, keepAlive: true, keepAliveInitialDelay: 30_000 };
    // HTTP/1.1 only: undici 8's HTTP/2 client emits socket errors nobody listens to when it reaps
    // an idle session or the server sends GOAWAY, and an unhandled 'error' event ends the process
    // (seen in the suite: "socket idle timeout" after a controller stopped). client-go multiplexes
    // its requests on one HTTP/2 connection; here a bounded set of kept-alive HTTP/1.1 connections
    // plays that part: a burst of writes queues on them instead of opening (and TLS-handshaking,
    // on both sides) a connection per concurrent request, and they stay open between bursts.
    const pooled = { connect, allowH2: false, keepAliveTimeout: IDLE_CONNECTION_MS, keepAliveMaxTimeout: IDLE_CONNECTION_MS };
    const requests = this.proxyUrl
      ? new ProxyAgent({ uri: this.proxyUrl, requestTls: settings, ...pooled, connections: REQUEST_CONNECTIONS })
      : new Agent({ ...pooled, connections: REQUEST_CONNECTIONS });
    // Each watch holds its connection for its whole life (HTTP/1.1), so watches are not bounded
    // by the request pool, where they would starve writes (or each other).
    const watches = this.proxyUrl ? new ProxyAgent({ uri: this.proxyUrl, requestTls: settings, connect, allowH2: false }) : new Agent({ connect, allowH2: false });
    this.pool = { settings, requests, watches };
    // Requests still running on the old pools (watches) finish there.
    void previous?.requests.close().catch(() => undefined);
    void previous?.watches.close().catch(() => undefined);
    return this.pool;
  }
}

/** Concurrent requests (watches aside) per apiserver: enough to keep a 2-CPU apiserver busy, few enough to keep every connection warm. */
export const REQUEST_CONNECTIONS = 32;
/**
 * Idle connections stay open this long: undici closes them after 4 s by default, so every burst
 * of writes paid new TLS handshakes. Below the apiserver's own idle limit (90 s), so it never
 * closes a connection under a write we are sending (a POST cut that way has an unknown outcome).
 */
const IDLE_CONNECTION_MS = 60_000;

interface ConnectionPools {
  settings: ConnectionSettings;
  requests: Dispatcher;
  watches: Dispatcher;
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Whether two requests' TLS settings are the same. Run on every request: client-node reads the
 * certificates afresh each time (new Buffers, usually the same bytes), so this compares bytes,
 * which is cheaper than hashing them.
 */
export function sameConnectionSettings(a: ConnectionSettings, b: ConnectionSettings): boolean {
  return sameValue(a, b);
}

/** Buffers by bytes, arrays and plain objects (a key with its passphrase) member by member. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Loads a KubeConfig: the file given, else client-node's default chain (KUBECONFIG, ~/.kube, in-cluster). */
export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}
