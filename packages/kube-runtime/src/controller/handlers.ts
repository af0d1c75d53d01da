// Ready-made mapObjectToKeys functions (controller-runtime's EnqueueRequestForObject and
// EnqueueRequestForOwner with OnlyControllerOwner).
import type { KubeObject, OwnerReference } from '../client/types.ts';
import { namespacedKey } from '../keys.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';
import type { MapObjectToKeys } from './controller.ts';

/** An API group and kind: whose controller reference `owns()` follows. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** The object's own key ("namespace/name"; an object without a name has the key of an empty name). */
export function keyOf(obj: DeepReadonly<KubeObject> | KubeObject): string {
  return namespacedKey(obj.metadata?.namespace, obj.metadata?.name ?? '');
}

/** The controlling ownerReference, if any (`controller: true`). */
export function controllerRef(obj: DeepReadonly<KubeObject> | KubeObject): DeepReadonly<OwnerReference> | undefined {
  return obj.metadata?.ownerReferences?.find((o) => o.controller === true);
}

/** API group of an apiVersion ('' for core). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/**
 * The key of the object's controller when it is of the given group and kind (owners are in the
 * same namespace as their dependents), e.g. pods -> their CloneSet.
 */
export function controllerOwnerKey(obj: DeepReadonly<KubeObject>, owner: GroupKind): string | undefined {
  const ref = controllerRef(obj);
  if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return undefined;
  return namespacedKey(obj.metadata?.namespace, ref.name);
}

/** controllerOwnerKey as a mapping for watches(). */
export function enqueueControllerOwner<T extends KubeObject>(owner: GroupKind): MapObjectToKeys<T> {
  return (obj) => controllerOwnerKey(obj, owner);
}
