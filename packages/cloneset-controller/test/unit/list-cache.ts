// A read-only cache over a fixed list: what the reconciler reads of an informer, for unit tests
// that run a whole pass.
import type { KubeObject } from '@cloneset-suite/kube-runtime';

export function listCache(objects: readonly KubeObject[]) {
  const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  const byKey = new Map(objects.map((o) => [keyOf(o), o]));
  return {
    getByKey: (key: string) => byKey.get(key),
    get: (ns: string | undefined, name: string) => byKey.get(`${ns ?? ''}/${name}`),
    byIndex: (_index: string, uid: string) => objects.filter((o) => (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid)),
  };
}
