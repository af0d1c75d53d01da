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
