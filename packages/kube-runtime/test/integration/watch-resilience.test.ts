// The reflector survives a kube-apiserver restart and a forced 410 Gone and converges to the
// apiserver's state without missing a delete.
import { restartComponent, usingExternalCluster } from '@cloneset-suite/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import type { HttpRequest, HttpResponse, Transport } from '../../src/client/transport.ts';
import { mergePatch } from '../../src/client/patch.ts';
import { SharedIndexInformer } from '../../src/informer/shared-informer.ts';
import { objectKey } from '../../src/keys.ts';
import { createMetrics } from '../../src/metrics.ts';
import { createNamespace, inParallel, kubeTransport, newClient, waitFor, type ConfigMap } from './support.ts';

/**
 * Wraps the real transport so a test can cut the informer's watches, hold new ones off, and
 * answer the next one with 410 Gone, as the apiserver does once the resourceVersion it asks for
 * was compacted away. (Asking the real apiserver for an ancient version is no way to get one:
 * kube-apiserver 1.36 served `resourceVersion=1` on a young cluster and replayed the events.)
 */
class InterposingTransport implements Transport {
  readonly host: string;
  private readonly inner: Transport;
  private cut = new AbortController();
  blockWatches = false;
  /** Answer the next watch with 410 Gone (once). */
  expireNextWatch = false;
  watchRequests = 0;

  constructor(inner: Transport) {
    this.inner = inner;
    this.host = inner.host;
  }

  /** Breaks every open watch connection, as a network failure would. */
  cutWatches(): void {
    this.cut.abort(new Error('connection cut by the test'));
    this.cut = new AbortController();
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (!req.query?.watch) return this.inner.send(req);
    this.watchRequests++;
    if (this.blockWatches) throw new Error('watch blocked by the test');
    const signals = [this.cut.signal, ...(req.signal ? [req.signal] : [])];
    if (this.expireNextWatch) {
      this.expireNextWatch = false;
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${String(req.query.resourceVersion)}` };
      return { status: 410, header: () => null, text: () => Promise.resolve(JSON.stringify(status)), chunks: async function* () {} };
    }
    return this.inner.send({ ...req, signal: AbortSignal.any(signals) });
  }
}

function tracker(informer: SharedIndexInformer<ConfigMap>) {
  const deletes = new Map<string, boolean>();
  informer.addEventHandler({
    onDelete: (o, unknown) => deletes.set(o.metadata?.name ?? '?', unknown),
  });
  return deletes;
}

async function expectCacheEqualsList(informer: SharedIndexInformer<ConfigMap>, list: () => Promise<ConfigMap[]>): Promise<void> {
  await waitFor(
    'the cache to equal a fresh list',
    async () => {
      const fresh = await list();
      const cache = informer.list();
      if (cache.length !== fresh.length) return false;
      return fresh.every((o) => informer.getByKey(objectKey(o))?.metadata?.resourceVersion === o.metadata?.resourceVersion);
    },
    90_000,
    250,
  );
}

describe('watch resilience', () => {
  const client = newClient();
  const cms = client.resource<ConfigMap>(Resources.configMaps);
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    ns = await createNamespace(client, 'kr-watch');
  });
  afterAll(async () => {
    await ns?.remove().catch(() => undefined);
  });
  const listNs = async () => (await cms.listAll({ namespace: ns.name })).items;

  it('converges after a forced 410 (a too-old resourceVersion) without missing deletes', async () => {
    const transport = new InterposingTransport(kubeTransport());
    const metrics = createMetrics();
    const informerClient = newClient({ transport, metrics });
    const informer = new SharedIndexInformer<ConfigMap>({
      client: informerClient.resource<ConfigMap>(Resources.configMaps),
      namespace: ns.name,
      metrics,
    });
    const deletes = tracker(informer);
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    const names = Array.from({ length: 40 }, (_, i) => `gone-${i}`);
    await inParallel(names, 10, (name) => cms.create({ metadata: { name, namespace: ns.name }, data: { v: '1' } }));
    await waitFor('the informer to see the creates', () => names.every((n) => informer.get(ns.name, n)));

    // Cut the informer off, change the world behind its back, then answer its next watch with
    // 410 Gone: the informer must relist (from the real apiserver) and deliver what it missed.
    transport.blockWatches = true;
    transport.cutWatches();
    const deleted = names.slice(0, 20);
    await inParallel(deleted, 10, (name) => cms.delete(ns.name, name));
    await cms.patch(ns.name, 'gone-30', mergePatch({ data: { v: '2' } }));
    transport.expireNextWatch = true;
    transport.blockWatches = false;

    await expectCacheEqualsList(informer, listNs);
    // Delivered through the relist, with the last state the cache knew.
    for (const name of deleted) expect(deletes.get(name), `delete of ${name} delivered`).toBe(true);
    expect(informer.get(ns.name, 'gone-30')?.data?.v).toBe('2');
    const relists = await metrics.registry.getSingleMetricAsString('informer_relists_total');
    expect(relists).toMatch(/informer_relists_total\{resource="configmaps"\} [2-9]/);
    ac.abort();
    await run;
  });

  // Restarting the apiserver is possible only on the local cluster, not on one given by E2E_KUBECONFIG.
  it.runIf(!usingExternalCluster())('survives a kube-apiserver restart and converges without a missed delete', async () => {
    const transport = new InterposingTransport(kubeTransport());
    const informer = new SharedIndexInformer<ConfigMap>({ client: newClient({ transport }).resource<ConfigMap>(Resources.configMaps), namespace: ns.name });
    const deletes = tracker(informer);
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();
    const names = Array.from({ length: 30 }, (_, i) => `survivor-${i}`);
    await inParallel(names, 10, (name) => cms.create({ metadata: { name, namespace: ns.name }, data: { v: '1' } }));
    await waitFor('the informer to see the creates', () => names.every((n) => informer.get(ns.name, n)));

    const watchesBefore = transport.watchRequests;
    await restartComponent('kube-apiserver');
    // Right after the restart, before or while the informer reconnects: delete and change things.
    const deleted = names.slice(0, 10);
    await inParallel(deleted, 5, (name) => cms.delete(ns.name, name));
    await cms.patch(ns.name, 'survivor-20', mergePatch({ data: { v: '2' } }));
    await cms.create({ metadata: { name: 'after-restart', namespace: ns.name } });

    await expectCacheEqualsList(informer, listNs);
    for (const name of deleted) expect(deletes.has(name), `delete of ${name} delivered`).toBe(true);
    expect(informer.get(ns.name, 'survivor-20')?.data?.v).toBe('2');
    expect(informer.get(ns.name, 'after-restart')).toBeDefined();
    expect(transport.watchRequests, 'the restart broke the watch and it was re-established').toBeGreaterThan(watchesBefore);
    ac.abort();
    await run;
  }, 600_000);
});
