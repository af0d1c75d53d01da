// A loopback fault-injecting proxy in front of the apiserver, started by a test: the manager is
// given a kubeconfig pointing here (plain http on 127.0.0.1), the proxy forwards to the real
// apiserver with the suite's credentials. While a fault is on it answers 429/5xx instead, or
// ends every watch with a 410 Expired event (forcing relists). It counts what it saw, so a test
// can tell backoff from a hot loop, and duplicate creates from lost deletes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadKubeConfig } from '@cloneset-suite/kube-runtime';
import { testKubeconfigPath } from '@cloneset-suite/local-cluster';

export type Fault = { kind: 'none' } | { kind: 'status'; code: 429 | 500 | 503 } | { kind: 'expire-watches' };

export interface ProxyCounts {
  /** Requests by "METHOD kind" (kind: watch, list, get, create, update, patch, delete). */
  requests: Map<string, number>;
  /** Answered by the fault instead of the apiserver. */
  faulted: number;
  /** Pod creates the apiserver answered 409 AlreadyExists. */
  duplicateCreates: number;
}

export interface FaultProxy {
  port: number;
  kubeconfig: string;
  setFault(f: Fault): void;
  counts(): ProxyCounts;
  /** Requests (any kind but watch) seen so far: sample before and after a window. */
  nonWatchRequests(): number;
  close(): Promise<void>;
}

const kindOf = (method: string, url: URL): string => {
  const watch = url.searchParams.get('watch');
  if (watch === 'true' || watch === '1') return 'watch';
  const parts = url.pathname.split('/').filter(Boolean);
  // /api/v1/namespaces/ns/pods[/name[/sub]]: a collection has an odd length from "namespaces".
  const named = parts.includes('namespaces') ? (parts.length - parts.indexOf('namespaces')) % 2 === 0 : parts.length % 2 === 0;
  if (method === 'GET') return named ? 'get' : 'list';
  return { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] ?? method.toLowerCase();
};

export interface FaultProxyOptions {
  /** CHAOS_BREAK=lost-delete: pod deletes answered with success and never forwarded. */
  swallowPodDeletes?: boolean;
  /** Watches of collections whose path matches are passed on this late, as a lagging cache sees them. */
  delayWatches?: { path: RegExp; ms: number };
}

export async function startFaultProxy(options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const swallowPodDeletes = options.swallowPodDeletes ?? false;
  const delayed = (kind: string, url: URL): number => (kind === 'watch' && options.delayWatches?.path.test(url.pathname) ? options.delayWatches.ms : 0);
  const kc = loadKubeConfig(testKubeconfigPath());
  const upstream = new URL(kc.getCurrentCluster()!.server);
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  let fault: Fault = { kind: 'none' };
  const counts: ProxyCounts = { requests: new Map(), faulted: 0, duplicateCreates: 0 };
  let nonWatch = 0;
  const expiredLine = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version (injected)' } }) + '\n';
  /** Open watch streams, so turning expiry on ends the running watches too, not only new ones. */
  const openWatches = new Set<() => void>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const kind = kindOf(req.method ?? 'GET', url);
    const key = `${req.method} ${kind}`;
    counts.requests.set(key, (counts.requests.get(key) ?? 0) + 1);
    if (kind !== 'watch') nonWatch++;
    // Leases are spared, as API Priority and Fairness gives leader election its own level: a
    // throttled apiserver slows controllers down, it does not depose every leader.
    const spared = url.pathname.startsWith('/apis/coordination.k8s.io/');
    if (fault.kind === 'status' && kind !== 'watch' && !spared) {
      counts.faulted++;
      res.writeHead(fault.code, { 'Content-Type': 'application/json', 'Retry-After': '1' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: fault.code, reason: fault.code === 429 ? 'TooManyRequests' : 'InternalError', message: 'injected by the chaos fault proxy' }));
      req.resume();
      return;
    }
    if (fault.kind === 'expire-watches' && kind === 'watch') {
      counts.faulted++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(expiredLine);
      req.resume();
      return;
    }
    if (swallowPodDeletes && kind === 'delete' && /\/pods\/[^/]+$/.test(url.pathname)) {
      // CHAOS_BREAK=lost-delete: the controller is told its delete succeeded; the pod stays.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Success' }));
      req.resume();
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    const up = httpsRequest({ ...tls, host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (upRes) => {
      if (kind === 'create' && upRes.statusCode === 409 && /\/pods$/.test(url.pathname)) counts.duplicateCreates++;
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      const lag = delayed(kind, url);
      if (lag > 0) {
        // Same delay for every chunk: the events keep their order, each arrives `lag` ms late.
        upRes.on('data', (chunk: Buffer) => setTimeout(() => res.writableEnded || res.write(chunk), lag));
        upRes.on('end', () => setTimeout(() => res.writableEnded || res.end(), lag));
      } else upRes.pipe(res);
      if (kind === 'watch' && upRes.statusCode === 200) {
        const expire = (): void => {
          upRes.unpipe(res);
          upRes.destroy();
          counts.faulted++;
          res.end(expiredLine);
        };
        openWatches.add(expire);
        res.on('close', () => openWatches.delete(expire));
      }
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'chaos-proxy-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'proxy', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'proxy', user: {} }],
      contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'proxy' } }],
      'current-context': 'proxy',
    }),
  );
  return {
    port,
    kubeconfig,
    setFault: (f) => {
      fault = f;
      if (f.kind === 'expire-watches') for (const expire of [...openWatches]) expire();
    },
    counts: () => counts,
    nonWatchRequests: () => nonWatch,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
