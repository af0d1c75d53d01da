// The resource client against the real apiserver: typed errors, preconditions, patch types,
// subresources, pagination, and a 409 on a patch surfaced as Conflict and retried by the caller.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConflictError,
  InvalidError,
  NotFoundError,
  isConflict,
} from '../../src/client/errors.ts';
import { Resources } from '../../src/client/gvr.ts';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/client/patch.ts';
import { retryOnConflict } from '../../src/client/retry.ts';
import type { KubeObject } from '../../src/client/types.ts';
import { createNamespace, newClient, type ConfigMap } from './support.ts';

describe('resource client against kube-apiserver', () => {
  const client = newClient();
  const cms = client.resource<ConfigMap>(Resources.configMaps);
  let ns: { name: string; remove: () => Promise<void> };
  beforeAll(async () => {
    ns = await createNamespace(client, 'kr-client');
  });
  afterAll(async () => {
    await ns?.remove();
  });

  it('a stale JSON-patch test, merge patch or replace is a Conflict, and retryOnConflict wins the race', async () => {
    await cms.create({ metadata: { name: 'race', namespace: ns.name }, data: { n: '0' } });
    const first = await cms.get(ns.name, 'race');
    const stale = await cms.get(ns.name, 'race');
    await cms.patch(ns.name, 'race', jsonPatch([{ op: 'replace', path: '/data/n', value: '1' }], { resourceVersion: first.metadata?.resourceVersion }));

    const viaTest = await cms
      .patch(ns.name, 'race', jsonPatch([{ op: 'replace', path: '/data/n', value: 'lost' }], { resourceVersion: stale.metadata?.resourceVersion }))
      .catch((e: unknown) => e);
    expect(viaTest).toBeInstanceOf(ConflictError);
    const viaMerge = await cms
      .patch(ns.name, 'race', mergePatch({ metadata: { resourceVersion: stale.metadata?.resourceVersion }, data: { n: 'lost' } }))
      .catch((e: unknown) => e);
    expect(viaMerge).toBeInstanceOf(ConflictError);
    expect((viaMerge as ConflictError).code).toBe(409);
    const viaReplace = await cms.replace({ ...stale, data: { n: 'lost' } }).catch((e: unknown) => e);
    expect(isConflict(viaReplace)).toBe(true);

    // Two writers increment concurrently with conditional patches; none is lost.
    let conflicts = 0;
    const increment = () =>
      retryOnConflict(
        async () => {
          const cur = await cms.get(ns.name, 'race');
          const n = Number(cur.data?.n);
          try {
            return await cms.patch(ns.name, 'race', jsonPatch([{ op: 'replace', path: '/data/n', value: String(n + 1) }], { resourceVersion: cur.metadata?.resourceVersion }));
          } catch (err) {
            if (isConflict(err)) conflicts++;
            throw err;
          }
        },
        { steps: 50, delayMs: 5 },
      );
    await Promise.all(Array.from({ length: 10 }, () => increment()));
    expect((await cms.get(ns.name, 'race')).data?.n).toBe('11');
    expect(conflicts).toBeGreaterThan(0);
  });

  it('a JSON patch whose test of a value (not the resourceVersion) lost a race is a Conflict; a wrong patch stays Invalid', async () => {
    await cms.create({ metadata: { name: 'listed', namespace: ns.name }, data: { list: 'a,b' } });
    const guarded = (seen: string) => jsonPatch([{ op: 'test', path: '/data/list', value: seen }, { op: 'replace', path: '/data/list', value: 'a' }]);
    await cms.patch(ns.name, 'listed', mergePatch({ data: { list: 'a,b,c' } }));
    // The apiserver answers a failed test with a generic 422; the value changed, so it is a lost race.
    expect(await cms.patch(ns.name, 'listed', guarded('a,b')).catch((e: unknown) => e)).toBeInstanceOf(ConflictError);
    // A patch that fails although its test holds is the patch's own fault.
    const wrong = jsonPatch([{ op: 'test', path: '/data/list', value: 'a,b,c' }, { op: 'remove', path: '/data/absent' }]);
    expect(await cms.patch(ns.name, 'listed', wrong).catch((e: unknown) => e)).toBeInstanceOf(InvalidError);
    expect((await cms.patch(ns.name, 'listed', guarded('a,b,c'))).data?.list).toBe('a');
  });

  it('maps NotFound, AlreadyExists, Invalid with causes, and delete preconditions', async () => {
    await expect(cms.get(ns.name, 'missing')).rejects.toBeInstanceOf(NotFoundError);
    await cms.create({ metadata: { name: 'dup', namespace: ns.name } });
    await expect(cms.create({ metadata: { name: 'dup', namespace: ns.name } })).rejects.toBeInstanceOf(AlreadyExistsError);
    const invalid = await cms.create({ metadata: { name: 'Not_Valid', namespace: ns.name } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidError);
    expect((invalid as InvalidError).causes.map((c) => c.field)).toContain('metadata.name');

    const dup = await cms.get(ns.name, 'dup');
    await expect(cms.delete(ns.name, 'dup', { preconditions: { uid: 'not-the-uid' } })).rejects.toBeInstanceOf(ConflictError);
    await expect(cms.delete(ns.name, 'dup', { preconditions: { resourceVersion: '1' } })).rejects.toBeInstanceOf(ConflictError);
    await cms.delete(ns.name, 'dup', { preconditions: { uid: dup.metadata?.uid, resourceVersion: dup.metadata?.resourceVersion }, propagationPolicy: 'Background' });
    await expect(cms.get(ns.name, 'dup')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('pages through lists with label and field selectors', async () => {
    for (let i = 0; i < 7; i++) {
      await cms.create({ metadata: { name: `page-${i}`, namespace: ns.name, labels: { page: i % 2 ? 'odd' : 'even' } } });
    }
    const first = await cms.list({ namespace: ns.name, labelSelector: 'page', limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata?.continue).toBeTruthy();
    const all = await cms.listAll({ namespace: ns.name, labelSelector: 'page in (odd,even)', limit: 2 });
    expect(all.items.map((c) => c.metadata?.name).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `page-${i}`));
    const odd = await cms.listAll({ namespace: ns.name, labelSelector: 'page=odd', fieldSelector: 'metadata.name!=page-1' });
    expect(odd.items.map((c) => c.metadata?.name).sort()).toEqual(['page-3', 'page-5']);
  });

  it('strategic merge on core types, the status and scale subresources', async () => {
    interface Deployment extends KubeObject {
      spec?: { replicas?: number; paused?: boolean };
      status?: { observedGeneration?: number };
    }
    const deployments = client.resource<Deployment>(Resources.deployments);
    const labels = { app: 'kr-scale' };
    await deployments.create({
      metadata: { name: 'web', namespace: ns.name, labels },
      spec: {
        replicas: 0,
        paused: true,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      } as Deployment['spec'],
    });
    const scaled = await deployments.patchScale(ns.name, 'web', mergePatch({ spec: { replicas: 2 } }));
    expect(scaled.spec?.replicas).toBe(2);
    expect((await deployments.getScale(ns.name, 'web')).spec?.replicas).toBe(2);

    const patched = await deployments.patch(ns.name, 'web', strategicMergePatch({ metadata: { labels: { tier: 'front' } } }));
    expect(patched.metadata?.labels).toEqual({ app: 'kr-scale', tier: 'front' });

    // /status ignores spec changes; the main resource ignores status changes.
    const st = await deployments.patchStatus(ns.name, 'web', mergePatch({ status: { observedGeneration: 42 }, spec: { replicas: 9 } }));
    expect(st.status?.observedGeneration).toBe(42);
    expect(st.spec?.replicas).toBe(2);
  });

  it('reuses pooled HTTP/1.1 connections: 20 sequential requests after a burst open almost none', async () => {
    const own = newClient();
    const ownCms = own.resource<ConfigMap>(Resources.configMaps);
    const protocols: unknown[] = [];
    const onConnect = (message: unknown): void => {
      protocols.push((message as { socket?: { alpnProtocol?: unknown } }).socket?.alpnProtocol);
    };
    const counted = { afterBurst: 0 };
    subscribe('undici:client:connected', onConnect);
    try {
      const ac = new AbortController();
      const watch = await own.rest.stream({ method: 'GET', path: `/api/v1/namespaces/${ns.name}/configmaps`, query: { watch: true }, signal: ac.signal });
      await Promise.all(Array.from({ length: 20 }, (_, i) => ownCms.create({ metadata: { name: `conn-${i}`, namespace: ns.name } })));
      counted.afterBurst = protocols.length;
      for (let i = 0; i < 20; i++) await ownCms.get(ns.name, `conn-${i}`);
      ac.abort();
      void watch;
    } finally {
      unsubscribe('undici:client:connected', onConnect);
    }
    // client-node alone builds a new pool (and TLS handshake) per request: 41 connections.
    expect(counted.afterBurst).toBeGreaterThan(0);
    expect(counted.afterBurst).toBeLessThanOrEqual(21); // the watch + at most one per concurrent request
    // The sequential requests reuse pooled connections (a socket the server closed meanwhile may
    // be replaced: allow two); client-node alone would open 20 more.
    expect(protocols.length - counted.afterBurst).toBeLessThanOrEqual(2);
    // HTTP/2 is refused on purpose (transport.ts): undici 8's h2 client can crash the process.
    expect(protocols.every((p) => p !== 'h2')).toBe(true);
  });
});

