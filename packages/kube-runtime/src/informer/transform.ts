// What an informer keeps of each object. Caches hold every pod of the cluster on every replica,
// so fields no controller reads are dropped before they are stored (controller-runtime users do
// the same with TransformStripManagedFields). Writes never send a cached object back whole (they
// are patches), so nothing dropped here can be lost on the server.
import type { KubeObject } from '../client/types.ts';

export type ObjectTransform<T> = (obj: T) => T;

/** Drops `metadata.managedFields` (often a third of a pod's JSON; server-side apply bookkeeping). */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * Keeps an object's identity (apiVersion, kind, name, namespace, uid, resourceVersion) and its
 * labels, nothing else: for caches read only for labels, such as nodes read for their topology
 * labels (a node's status lists every image it holds and can run to tens of KiB).
 */
export function keepIdentityAndLabels(obj: KubeObject): KubeObject {
  const { name, namespace, uid, resourceVersion, labels } = obj.metadata ?? {};
  const { apiVersion, kind } = obj;
  return definedOnly({ apiVersion, kind, metadata: definedOnly({ name, namespace, uid, resourceVersion, labels }) });
}

/** The object without its undefined fields, so a cached copy compares equal to the served one. */
function definedOnly<O extends object>(o: O): O {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as O;
}
