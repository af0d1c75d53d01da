// Ready-made mapObjectToKeys functions (controller-runtime's EnqueueRequestForObject and
// EnqueueRequestForOwner with OnlyControllerOwner).
import type { KubeObject, OwnerReference } from './client/types.ts';
import type { MapObjectToKeys } from './controller.ts';
import { namespacedKey, objectKey } from './keys.ts';
import type { DeepReadonly } from './util/deep-readonly.ts';

/** The object's own key. */
export function enqueueObject<T extends KubeObject>(): MapObjectToKeys<T> {
  return (obj) => objectKey(obj);
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
export function enqueueControllerOwner<T extends KubeObject>(owner: { group: string; kind: string }): MapObjectToKeys<T> {
  return (obj) => {
    const ref = controllerRef(obj);
    if (!ref || ref.kind !== owner.kind || groupOf(ref.apiVersion) !== owner.group) return undefined;
    return namespacedKey(obj.metadata?.namespace, ref.name);
  };
}
