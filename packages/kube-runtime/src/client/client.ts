// The client factory: one RestClient (one rate limit, one set of metrics) shared by every
// ResourceClient the controllers create.
import type { KubeConfig } from '@kubernetes/client-node';
import type { RuntimeMetrics } from '../metrics.ts';
import type { Clock } from '../util/clock.ts';
import type { GroupVersionResource } from './gvr.ts';
import { ResourceClient } from './resource-client.ts';
import { RestClient } from './rest-client.ts';
import { KubeConfigTransport, type Transport } from './transport.ts';
import type { KubeObject } from './types.ts';

export interface KubeClientOptions {
  /** Either a KubeConfig (auth from client-node) or a ready Transport (tests). */
  kubeConfig?: KubeConfig;
  transport?: Transport;
  qps?: number;
  burst?: number;
  /** Per-request answer timeout (RestClient's, default 60 s). */
  requestTimeoutMs?: number;
  userAgent?: string;
  clock?: Clock;
  metrics?: RuntimeMetrics;
}

export class KubeClient {
  readonly rest: RestClient;
  /**
   * Requests the transport sends at once (Infinity when it does not say). A caller with many
   * independent writes keeps no more than this in flight: more would only wait in the
   * transport's queue, with their answer timeouts already running.
   */
  readonly maxConcurrentRequests: number;
  private readonly clients = new Map<string, ResourceClient<KubeObject>>();

  constructor(options: KubeClientOptions) {
    const transport =
      options.transport ??
      (options.kubeConfig ? new KubeConfigTransport(options.kubeConfig, options.userAgent) : undefined);
    if (!transport) throw new Error('KubeClient needs a kubeConfig or a transport');
    this.maxConcurrentRequests = transport.maxConcurrentRequests ?? Number.POSITIVE_INFINITY;
    this.rest = new RestClient({ transport, qps: options.qps, burst: options.burst, requestTimeoutMs: options.requestTimeoutMs, clock: options.clock, metrics: options.metrics });
  }

  /** The typed client for a GVR; the type parameter is the caller's promise about its shape. */
  resource<T extends KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
    const id = `${gvr.group}/${gvr.version}/${gvr.resource}`;
    let c = this.clients.get(id);
    if (!c) {
      c = new ResourceClient<KubeObject>(this.rest, gvr);
      this.clients.set(id, c);
    }
    return c as unknown as ResourceClient<T>;
  }
}
