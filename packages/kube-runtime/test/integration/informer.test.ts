// An informer against the real apiserver: 1,000 ConfigMaps created, updated and deleted; the
// handlers see each object's events in order, and the cache ends identical to a fresh list.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Resources } from '../../src/client/gvr.ts';
import { mergePatch } from '../../src/client/patch.ts';
import { SharedIndexInformer } from '../../src/informer/shared-informer.ts';
import { stripManagedFields } from '../../src/informer/transform.ts';
import { objectKey } from '../../src/keys.ts';
import { createNamespace, inParallel, newClient, waitFor, type ConfigMap } from './support.ts';

const N = 1000;

describe('informer against kube-apiserver', () => {
  const client = newClient();
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    ns = await createNamespace(client, 'kr-informer');
  });
  afterAll(async () => {
    await ns?.remove();
  });

  it('sees create/update/delete of 1,000 ConfigMaps in order and ends with an identical cache', async () => {
    const cms = client.resource<ConfigMap>(Resources.configMaps);
    // The label keeps out what the cluster adds by itself (kube-root-ca.crt).
    const informer = new SharedIndexInformer<ConfigMap>({ client: cms, namespace: ns.name, labelSelector: 'kr-test=informer', pageSize: 100 });
    const history = new Map<string, string[]>();
    const note = (name: string | undefined, what: string) => {
      const h = history.get(name ?? '?') ?? [];
      h.push(what);
      history.set(name ?? '?', h);
    };
    let lastRV = 0n;
    let rvOrdered = true;
    const seeRV = (rv: string | undefined) => {
      const v = BigInt(rv ?? '0');
      if (v < lastRV) rvOrdered = false;
      lastRV = v;
    };
    informer.addEventHandler({
      onAdd: (o) => {
        seeRV(o.metadata?.resourceVersion);
        note(o.metadata?.name, `add:${o.data?.gen ?? ''}`);
      },
      onUpdate: (a, b) => {
        seeRV(b.metadata?.resourceVersion);
        note(b.metadata?.name, `update:${a.data?.gen ?? ''}->${b.data?.gen ?? ''}`);
      },
      onDelete: (o, unknown) => {
        note(o.metadata?.name, `delete:${o.data?.gen ?? ''}${unknown ? ':unknown' : ''}`);
      },
    });
    const ac = new AbortController();
    const run = informer.run(ac.signal);
    await informer.waitForSync();

    const names = Array.from({ length: N }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
    await inParallel(names, 50, (name) => cms.create({ metadata: { name, namespace: ns.name, labels: { 'kr-test': 'informer' } }, data: { gen: '1' } }));
    await inParallel(names, 50, (name) => cms.patch(ns.name, name, mergePatch({ data: { gen: '2' } })));
    const deleted = names.filter((_, i) => i % 2 === 0);
    await inParallel(deleted, 50, (name) => cms.delete(ns.name, name));
    const kept = names.filter((_, i) => i % 2 === 1);
    await inParallel(kept, 50, (name) => cms.patch(ns.name, name, mergePatch({ data: { gen: '3' } })));

    await waitFor('the cache to converge', () => informer.list().length === kept.length && kept.every((n) => informer.get(ns.name, n)?.data?.gen === '3'), 60_000);
    // Each object's own events arrive in the order they were made.
    for (const name of deleted) expect(history.get(name), name).toEqual(['add:1', 'update:1->2', 'delete:2']);
    for (const name of kept) expect(history.get(name), name).toEqual(['add:1', 'update:1->2', 'update:2->3']);
    expect(rvOrdered).toBe(true);

    // The cache equals what a fresh list returns, object for object.
    const fresh = await cms.listAll({ namespace: ns.name, labelSelector: 'kr-test=informer' });
    const cache = new Map(informer.list().map((o) => [objectKey(o), o]));
    expect(cache.size).toBe(fresh.items.length);
    // The cache holds what the apiserver serves, less managedFields (dropped before caching).
    for (const o of fresh.items) expect(cache.get(objectKey(o))).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', ...stripManagedFields(o) });
    for (const o of cache.values()) expect(o.metadata).not.toHaveProperty('managedFields');
    ac.abort();
    await run;
  });
});
