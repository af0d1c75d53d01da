// The API writes of the controller: finalizer, status, pod detail annotations. Each is a minimal
// patch; a pod that is gone is not an error.
import { PTR_PROTECTION_FINALIZER, type PodTransitionRuleStatus } from '@cloneset-suite/api-types';
import { isNotFound, jsonPatch, mergePatch, type DeepReadonly, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { AnnotationChange } from '../core/results.ts';
import { podResource, podTransitionRuleResource, type PodTransitionRuleObject } from './resources.ts';

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export async function addFinalizer(client: KubeClient, ptr: Ptr, signal: AbortSignal): Promise<void> {
  const current = ptr.metadata?.finalizers;
  const ops = current
    ? [{ op: 'test' as const, path: '/metadata/finalizers', value: [...current] }, { op: 'add' as const, path: '/metadata/finalizers/-', value: PTR_PROTECTION_FINALIZER }]
    : [{ op: 'add' as const, path: '/metadata/finalizers', value: [PTR_PROTECTION_FINALIZER] }];
  await client.resource<PodTransitionRuleObject>(podTransitionRuleResource).patch(ptr.metadata?.namespace, ptr.metadata?.name ?? '', jsonPatch(ops), { signal });
}

export async function removeFinalizer(client: KubeClient, ptr: Ptr, signal: AbortSignal): Promise<void> {
  const current = [...(ptr.metadata?.finalizers ?? [])];
  const ops = [
    { op: 'test' as const, path: '/metadata/finalizers', value: current },
    { op: 'replace' as const, path: '/metadata/finalizers', value: current.filter((f) => f !== PTR_PROTECTION_FINALIZER) },
  ];
  try {
    await client.resource<PodTransitionRuleObject>(podTransitionRuleResource).patch(ptr.metadata?.namespace, ptr.metadata?.name ?? '', jsonPatch(ops), { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Writes the status; returns the new resourceVersion. */
export async function writeStatus(client: KubeClient, ptr: Ptr, status: PodTransitionRuleStatus, signal: AbortSignal): Promise<string | undefined> {
  const updated = await client
    .resource<PodTransitionRuleObject>(podTransitionRuleResource)
    .patchStatus(ptr.metadata?.namespace, ptr.metadata?.name ?? '', jsonPatch([{ op: 'add', path: '/status', value: status }]), { signal });
  return updated.metadata?.resourceVersion;
}

/** Sets or removes one pod's detail annotation; a pod that is gone is not an error. */
export async function patchAnnotation(client: KubeClient, namespace: string, change: AnnotationChange, signal: AbortSignal): Promise<void> {
  try {
    await client.resource<KubeObject>(podResource).patch(namespace, change.pod, mergePatch({ metadata: { annotations: { [change.key]: change.value ?? null } } }), { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

export async function patchAnnotations(client: KubeClient, namespace: string, changes: readonly AnnotationChange[], signal: AbortSignal): Promise<void> {
  for (const change of changes) await patchAnnotation(client, namespace, change, signal);
}
