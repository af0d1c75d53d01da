// A drain of a CloneSet (timebertt/kubernetes-controller-sharding, docs/implement-sharding.md,
// "Acknowledge Drain Operations"): the shard stops planning it, forgets what it kept in memory
// for it (expectations, own-write versions, the handover read), and hands it back in one write
// that removes the drain and the shard label, tested against the version it read. The sharder
// then assigns it anew; its next owner starts from the cluster (reconciler/shard-handover.ts).
import { drainAcknowledgement, isNotFound, writeOutcome, type KubeClient, type Logger } from '@cloneset-suite/kube-runtime';
import type { CloneSetObject } from './caches.ts';
import { cloneSetResource } from './resources.ts';

export type DrainOutcome = 'handed-back' | 'changed-since-read' | 'gone';

export async function acknowledgeDrain(cs: CloneSetObject, ring: string, deps: { client: KubeClient; forget: () => void; logger: Logger; signal: AbortSignal }): Promise<DrainOutcome> {
  deps.forget();
  try {
    await deps.client.resource<CloneSetObject>(cloneSetResource).patch(cs.metadata.namespace, cs.metadata.name ?? '', drainAcknowledgement(cs, ring), { signal: deps.signal });
    deps.logger.info({ cloneSet: `${cs.metadata.namespace ?? ''}/${cs.metadata.name ?? ''}` }, 'drained: handed the CloneSet back to the sharder');
    return 'handed-back';
  } catch (err) {
    if (isNotFound(err)) return 'gone';
    // A newer version is on its way to the cache; the drain is decided again on it.
    if (writeOutcome(err, deps.signal) === 'conflict') return 'changed-since-read';
    throw err;
  }
}
