// A read-only cache over a fixed list: what the reconciler reads of an informer, for unit tests
// that run a whole pass; and the reconciler over such caches.
import { FakeClock, ResourceVersionExpectations, ScaleExpectations, silentLogger, type KubeObject, type ReconcileContext, type ReconcilerParts } from '@cloneset-suite/kube-runtime';
import type { CloneSetObject } from '../../src/reconciler/caches.ts';
import { cloneSetReconciler, type CloneSetReconcilerDeps } from '../../src/reconciler/reconcile.ts';
import { NOW, seededRandom } from './fixtures.ts';

export function listCache(objects: readonly KubeObject[]) {
  const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  const byKey = new Map(objects.map((o) => [keyOf(o), o]));
  return {
    getByKey: (key: string) => byKey.get(key),
    get: (ns: string | undefined, name: string) => byKey.get(`${ns ?? ''}/${name}`),
    byIndex: (_index: string, uid: string) => objects.filter((o) => (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid)),
  };
}

/**
 * The CloneSet reconciler over list-backed caches, with the deps a unit pass does not vary
 * (fresh write-version expectations, no gates, no image pull jobs); `over` replaces any of them.
 */
export function reconcilerOverLists(deps: Pick<CloneSetReconcilerDeps, 'caches' | 'client' | 'recorder'> & Partial<CloneSetReconcilerDeps>): ReconcilerParts<CloneSetObject> {
  return cloneSetReconciler({
    clock: new FakeClock(NOW),
    expectations: new ScaleExpectations({ controller: 'cloneset' }),
    podWrites: new ResourceVersionExpectations(),
    statusWrites: new ResourceVersionExpectations(),
    gates: {},
    random: seededRandom(3),
    resizeDeferredTimeoutMs: undefined,
    imagePullJobs: undefined,
    ...deps,
  });
}

/** The context of one pass over the CloneSet `key` (namespace/name). */
export function passContext(key: string): ReconcileContext {
  const [namespace = '', name = ''] = key.split('/');
  return { key, namespace, name, reconcileID: 'r1', logger: silentLogger(), signal: new AbortController().signal, retries: 0 };
}
