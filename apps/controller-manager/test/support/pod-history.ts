// Every version of every pod of a namespace, as a watch delivers them, so a cluster test can
// check a property of each write (not only of what a poll happened to sample).
import { Resources, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { Pod } from '@cloneset-suite/podopslifecycle';

export class PodHistory {
  /** Versions by pod uid, in order. */
  readonly versions = new Map<string, Pod[]>();
  private readonly abort = new AbortController();

  constructor(client: KubeClient, namespace: string) {
    const pods = client.resource<KubeObject>(Resources.pods);
    void (async () => {
      let resourceVersion: string | undefined;
      while (!this.abort.signal.aborted) {
        try {
          for await (const ev of pods.watch({ namespace, signal: this.abort.signal, ...(resourceVersion ? { resourceVersion } : {}) })) {
            const pod = ev.object as unknown as Pod;
            resourceVersion = pod.metadata?.resourceVersion ?? resourceVersion;
            const uid = pod.metadata?.uid;
            if (!uid || ev.type === 'BOOKMARK' || ev.type === 'ERROR') continue;
            const list = this.versions.get(uid) ?? [];
            list.push(pod);
            this.versions.set(uid, list);
          }
        } catch {
          // A broken stream: resume from the last version seen (or from scratch after an error).
          if (!this.abort.signal.aborted) await new Promise((r) => setTimeout(r, 200));
        }
      }
    })();
  }

  /** Pairs (before, after) of consecutive versions of each pod. */
  transitions(): [Pod, Pod][] {
    const out: [Pod, Pod][] = [];
    for (const list of this.versions.values()) for (let i = 1; i < list.length; i++) out.push([list[i - 1]!, list[i]!]);
    return out;
  }

  stop(): void {
    this.abort.abort();
  }
}
