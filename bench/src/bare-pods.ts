// Pods made straight through the API, no controller in between: the memory scenario needs
// thousands of pods to cache, and on 2 shared CPUs a ReplicaSet's slow-start takes most of an
// hour for 10,000. Each pod is bound to a simulated node at creation (no scheduler pass), so the
// simulated kubelet makes it Running and Ready as it would a ReplicaSet's.
import { Resources, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, podResource } from './kube.ts';
import { isReady, type Pod } from './pods.ts';
import { IMAGE_V1, podTemplate } from './workloads.ts';

/** Names `<app>-<index>` for indexes [from, to), zero-padded so they sort by index. */
export function barePodNames(app: string, from: number, to: number): string[] {
  const names: string[] = [];
  for (let i = from; i < to; i++) names.push(`${app}-${String(i).padStart(6, '0')}`);
  return names;
}

export async function createBarePods(namespace: string, app: string, from: number, to: number, concurrency = 32): Promise<void> {
  const nodes = (await benchClient().resource<KubeObject>(Resources.nodes).list()).items.map((n) => n.metadata?.name ?? '').filter(Boolean);
  if (nodes.length === 0) throw new Error('no node to bind the pods to');
  const template = podTemplate(app, IMAGE_V1) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const names = barePodNames(app, from, to);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < names.length; i = next++) {
      const pod = { metadata: { ...template.metadata, name: names[i] }, spec: { ...template.spec, nodeName: nodes[(from + i) % nodes.length] } };
      await benchClient().resource<KubeObject>(podResource).create(pod, { namespace });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** How many pods of the namespace are Ready, read a page at a time. */
export async function countReadyPods(namespace: string): Promise<number> {
  let ready = 0;
  for await (const page of benchClient().resource<KubeObject>(podResource).listPages({ namespace, limit: 500 })) {
    ready += page.items.filter((p) => isReady(p as Pod)).length;
  }
  return ready;
}
