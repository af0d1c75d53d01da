// Every version of every object of a kind in a namespace, as a watch delivers them, so a cluster
// test can check a property of each write (not only of what a poll happened to sample).
import { Resources, type GroupVersionResource, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { Pod } from '@cloneset-suite/podopslifecycle';

export class WatchHistory<T extends { metadata?: { uid?: string; resourceVersion?: string } }> {
  /** Versions by uid, in order. */
  readonly versions = new Map<string, T[]>();
  /** Every version of every object, in the order the watch delivered them (a deletion's last state included). */
  readonly all: { type: string; object: T }[] = [];
  private readonly abort = new AbortController();

  constructor(client: KubeClient, namespace: string, resource: GroupVersionResource) {
    const objects = client.resource<KubeObject>(resource);
    void (async () => {
      let resourceVersion: string | undefined;
      while (!this.abort.signal.aborted) {
        try {
          for await (const ev of objects.watch({ namespace, signal: this.abort.signal, ...(resourceVersion ? { resourceVersion } : {}) })) {
            const obj = ev.object as unknown as T;
            resourceVersion = obj.metadata?.resourceVersion ?? resourceVersion;
            const uid = obj.metadata?.uid;
            if (!uid || ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
            const list = this.versions.get(uid) ?? [];
            list.push(obj);
            this.versions.set(uid, list);
            this.all.push({ type: ev.type, object: obj });
          }
        } catch {
          // A broken stream: resume from the last version seen (or from scratch after an error).
          if (!this.abort.signal.aborted) await new Promise((r) => setTimeout(r, 200));
        }
      }
    })();
  }

  /** Pairs (before, after) of consecutive versions of each object. */
  transitions(): [T, T][] {
    const out: [T, T][] = [];
    for (const list of this.versions.values()) for (let i = 1; i < list.length; i++) out.push([list[i - 1]!, list[i]!]);
    return out;
  }

  stop(): void {
    this.abort.abort();
  }
}

export class PodHistory extends WatchHistory<Pod> {
  constructor(client: KubeClient, namespace: string) {
    super(client, namespace, Resources.pods);
  }
}
