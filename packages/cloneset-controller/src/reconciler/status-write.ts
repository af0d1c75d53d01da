// The CloneSet's /status write, conditional on the resourceVersion the status
// was computed from: a status planned from a cache that missed a newer write (another writer's
// status, a spec change, an old leader still running) must not replace it. The apiserver refuses
// the patch's `test` and the pass is replanned from a fresher cache.
import { isConflict, jsonPatch, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { CloneSetLike, CloneSetStatusLike } from '../core/types.ts';
import { cloneSetResource } from './resources.ts';

export type StatusWriteResult = { written: true; resourceVersion: string | undefined } | { written: false; reason: 'conflict' };

export async function writeCloneSetStatus(client: KubeClient, cs: CloneSetLike & KubeObject, status: CloneSetStatusLike, signal: AbortSignal): Promise<StatusWriteResult> {
  const patch = jsonPatch([{ op: 'add', path: '/status', value: status }], { resourceVersion: cs.metadata.resourceVersion });
  try {
    const written = await client.resource<KubeObject>(cloneSetResource).patchStatus(cs.metadata.namespace, cs.metadata.name ?? '', patch, { signal });
    return { written: true, resourceVersion: written.metadata?.resourceVersion };
  } catch (err) {
    if (isConflict(err)) return { written: false, reason: 'conflict' };
    throw err;
  }
}
