// HTTP to the apiserver. Auth and TLS (tokens, client certs, exec/OIDC plugins, in-cluster) come
// from client-node's KubeConfig: it fills a RequestContext with headers and an undici dispatcher,
// and we send the request ourselves so any GVR, patch type and streaming watch work the same way.
import { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { fetch } from 'undici';

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
  send(req: HttpRequest): Promise<HttpResponse>;
}

export function buildURL(server: string, path: string, query?: QueryParams): URL {
  const url = new URL(server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url;
}

export class KubeConfigTransport implements Transport {
  readonly host: string;
  private readonly kubeConfig: KubeConfig;
  private readonly server: string;
  private readonly userAgent: string;

  constructor(kubeConfig: KubeConfig, userAgent = 'cloneset-suite/kube-runtime') {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.kubeConfig = kubeConfig;
    this.server = cluster.server;
    this.host = new URL(cluster.server).host;
    this.userAgent = userAgent;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const url = buildURL(this.server, req.path, req.query);
    const ctx = new RequestContext(url.toString(), req.method);
    // Re-applied per request: exec and token-file credentials rotate.
    await this.kubeConfig.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = {
      ...ctx.getHeaders(),
      Accept: 'application/json',
      'User-Agent': this.userAgent,
    };
    if (req.contentType) headers['Content-Type'] = req.contentType;
    const dispatcher = ctx.getDispatcher();
    const res = await fetch(url, {
      method: req.method,
      headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      ...(dispatcher ? { dispatcher } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    });
    return {
      status: res.status,
      header: (name) => res.headers.get(name),
      text: () => res.text(),
      chunks: () => res.body ?? emptyChunks(),
    };
  }
}

async function* emptyChunks(): AsyncIterable<Uint8Array> {}

/** Loads a KubeConfig: the file given, else client-node's default chain (KUBECONFIG, ~/.kube, in-cluster). */
export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}
