// The shell of the shard handover (core/shard-handover.ts says why): per CloneSet of this term, a
// live list of what it controls (labelling for this shard what still names another), then a wait
// until the caches show it. A CloneSet that leaves
// this shard is forgotten, so it is read again if it comes back.
import { labelSelectorToString } from '@cloneset-suite/api-types';
import { isConflict, isNotFound, mergePatch, namespacedKey, shardLabel, type GroupVersionResource, type KubeClient, type KubeObject, type RingMembership } from '@cloneset-suite/kube-runtime';
import { INSTANCE_ID_LABEL } from '../core/keys.ts';
import { handoverVerdict, type CacheView, type ControlledInCluster, type HandoverState } from '../core/shard-handover.ts';
import type { CloneSetObject } from './caches.ts';
import { podResource, pvcResource, revisionResource } from './resources.ts';

/** How long the caches may take to show what the live list found before it is read again. */
export const HANDOVER_WINDOW_MS = 30_000;

export type HandoverCheck = { readonly ready: true } | { readonly ready: false; readonly missing: readonly string[] };

export class ShardHandover {
  private readonly states = new Map<string, HandoverState | 'ready'>();
  private readonly client: KubeClient;
  private readonly now: () => number;

  private readonly membership: RingMembership;

  constructor(options: { client: KubeClient; now: () => number; membership: RingMembership }) {
    this.client = options.client;
    this.now = options.now;
    this.membership = options.membership;
  }

  /** Whether this CloneSet's caches are complete enough to plan from. */
  async check(key: string, cs: CloneSetObject, inCache: CacheView, signal: AbortSignal): Promise<HandoverCheck> {
    const state = this.states.get(key);
    if (state === 'ready') return { ready: true };
    let verdict = handoverVerdict(state, inCache, this.now(), HANDOVER_WINDOW_MS);
    if (verdict.kind === 'list') {
      const listed: HandoverState = { listedAtMs: this.now(), listed: await this.controlledInCluster(cs, signal) };
      this.states.set(key, listed);
      verdict = handoverVerdict(listed, inCache, this.now(), HANDOVER_WINDOW_MS);
    }
    if (verdict.kind === 'ready') {
      this.states.set(key, 'ready');
      return { ready: true };
    }
    return { ready: false, missing: verdict.kind === 'wait' ? verdict.missing : [] };
  }

  forget(key: string): void {
    this.states.delete(key);
  }

  private async controlledInCluster(cs: CloneSetObject, signal: AbortSignal): Promise<ControlledInCluster> {
    const namespace = cs.metadata.namespace;
    const uid = cs.metadata.uid;
    const controlled = async (resource: GroupVersionResource, labelSelector: string): Promise<string[]> => {
      const list = await this.client.resource<KubeObject>(resource).listAll({ namespace, labelSelector, signal });
      const mine = list.items.filter((o) => (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid));
      for (const o of mine) await this.adopt(resource, o, signal);
      return mine.map((o) => namespacedKey(o.metadata?.namespace ?? namespace ?? '', o.metadata?.name ?? ''));
    };
    const bySelector = labelSelectorToString(cs.spec.selector);
    // Claims owned by their pod (PVC reuse off) hash to the pod's key in the sharder, not to the
    // CloneSet's, so they are not this shard's to wait for.
    return {
      pods: await controlled(podResource, bySelector),
      pvcs: await controlled(pvcResource, INSTANCE_ID_LABEL),
      revisions: await controlled(revisionResource, bySelector),
    };
  }

  /**
   * An object of this CloneSet still labelled for another shard (or none) — one the previous
   * shard created while the sharder was moving the rest — is labelled for this one, guarded by
   * the version listed: the previous shard has let the CloneSet go (drained or dead), so no one
   * else acts on it, and the sharder's own resync would assign it here too.
   */
  private async adopt(resource: GroupVersionResource, o: KubeObject, signal: AbortSignal): Promise<void> {
    const key = shardLabel(this.membership.ring);
    if (o.metadata?.labels?.[key] === this.membership.shard) return;
    try {
      await this.client.resource<KubeObject>(resource).patch(o.metadata?.namespace, o.metadata?.name ?? '', mergePatch({ metadata: { resourceVersion: o.metadata?.resourceVersion, labels: { [key]: this.membership.shard } } }), { signal });
    } catch (err) {
      // Changed or gone since the list: the wait below reads the cluster again after its window.
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
}
