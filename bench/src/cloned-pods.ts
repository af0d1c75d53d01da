// A CloneSet's pods made straight through the API, as its controller makes them, for the
// 50,000-pod manager: on 2 shared CPUs, scale-outs through the controller at that size would take
// hours of setup before anything is measured. One pod the controller made itself is the sample:
// every new pod carries its labels (revision, state Normal), annotations, owner reference and spec
// (both readiness gates), with an instance id and name of its own, bound to a node at creation (no
// scheduler pass); then its two gate conditions are set True through /status, as the controller
// does right after a create, so the simulated kubelet makes it Ready like any other.
import { KRUISE_LABELS, KRUISE_READINESS_GATES } from '@cloneset-suite/api-types';
import { Resources, jsonPatch, strategicMergePatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, podResource } from './kube.ts';

/** The controller's instance-id alphabet (OpenKruise's: no vowels, no look-alike digits) and length. */
const ID_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const ID_LENGTH = 5;

/** `count` distinct instance ids, none of them `taken`, in a fixed order (the run is repeatable). */
export function instanceIds(count: number, taken: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) {
    let id = '';
    for (let rest = i, k = 0; k < ID_LENGTH; k++, rest = Math.floor(rest / ID_ALPHABET.length)) id = ID_ALPHABET[rest % ID_ALPHABET.length]! + id;
    if (!taken.has(id)) ids.push(id);
  }
  return ids;
}

interface PodSpecLike {
  volumes?: { name: string }[];
  containers?: { volumeMounts?: { name: string }[] }[];
  [key: string]: unknown;
}

/** The service-account token volume admission adds to every pod: each new pod gets its own. */
const isTokenVolume = (name: string): boolean => name.startsWith('kube-api-access-');

/** A new pod of the sample's CloneSet and revision, with instance id `id`, bound to `nodeName`. */
export function podLike(sample: KubeObject & { spec?: PodSpecLike }, id: string, nodeName: string): KubeObject & { spec: PodSpecLike } {
  const m = sample.metadata ?? {};
  const csName = m.ownerReferences?.find((r) => r.controller)?.name ?? '';
  const spec = structuredClone(sample.spec ?? {});
  spec.volumes = (spec.volumes ?? []).filter((v) => !isTokenVolume(v.name));
  if (spec.volumes.length === 0) delete spec.volumes;
  for (const c of spec.containers ?? []) {
    c.volumeMounts = (c.volumeMounts ?? []).filter((v) => !isTokenVolume(v.name));
    if (c.volumeMounts.length === 0) delete c.volumeMounts;
  }
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${csName}-${id}`,
      namespace: m.namespace,
      labels: { ...(m.labels ?? {}), [KRUISE_LABELS.cloneSetInstanceId]: id },
      annotations: { ...(m.annotations ?? {}) },
      ownerReferences: structuredClone(m.ownerReferences ?? []),
    },
    spec: { ...spec, nodeName },
  };
}

/** Runs `work` over `items` with `concurrency` in flight. */
async function eachConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Brings the CloneSet `name` (its controller stopped, one pod of its own made) to `replicas` pods:
 * its spec.replicas first (no controller runs to act on it), then the pods and their gate writes.
 */
export async function fillCloneSet(namespace: string, name: string, replicas: number, concurrency = 32): Promise<void> {
  const client = benchClient();
  const nodes = (await client.resource<KubeObject>(Resources.nodes).list()).items.map((n) => n.metadata?.name ?? '').filter(Boolean);
  if (nodes.length === 0) throw new Error('no node to bind the pods to');
  const own = (await client.resource<KubeObject>(podResource).list({ namespace, labelSelector: `app=${name}` })).items;
  const sample = own[0];
  if (!sample) throw new Error(`CloneSet ${namespace}/${name} has no pod to copy`);
  const taken = new Set(own.map((p) => p.metadata?.labels?.[KRUISE_LABELS.cloneSetInstanceId] ?? ''));
  await client.resource<KubeObject>(cloneSetResource).patch(namespace, name, jsonPatch([{ op: 'replace', path: '/spec/replicas', value: replicas }]));
  const ids = instanceIds(Math.max(0, replicas - own.length), taken);
  const now = new Date().toISOString();
  const gates = Object.values(KRUISE_READINESS_GATES).map((type) => ({ type, status: 'True', lastTransitionTime: now }));
  await eachConcurrently(ids, concurrency, async (id) => {
    const pod = podLike(sample, id, nodes[taken.size % nodes.length]!);
    taken.add(id);
    await client.resource<KubeObject>(podResource).create(pod, { namespace });
    await client.resource<KubeObject>(podResource).patchStatus(namespace, pod.metadata!.name!, strategicMergePatch({ status: { conditions: gates } }));
  });
}
