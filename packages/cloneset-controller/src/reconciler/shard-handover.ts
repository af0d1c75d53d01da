// The shell of the shard handover (core/shard-handover.ts says why): per CloneSet of this term, a
// live list of what it controls, then a wait until the caches show it. A CloneSet that leaves
// this shard is forgotten, so it is read again if it comes back.
import { labelSelectorToString } from '@cloneset-suite/api-types';
import { namespacedKey, type GroupVersionResource, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
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

  constructor(options: { client: KubeClient; now: () => number }) {
    this.client = options.client;
    this.now = options.now;
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
      return list.items
        .filter((o) => (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid))
        .map((o) => namespacedKey(o.metadata?.namespace ?? namespace ?? '', o.metadata?.name ?? ''));
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
}
