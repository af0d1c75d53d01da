// The fake nodes: spread over three zones, untainted, managed by kwok (annotation).
import { stringify } from 'yaml';

export const zones = ['zone-a', 'zone-b', 'zone-c'] as const;

export function nodeName(index: number): string {
  return `kwok-node-${index}`;
}

/** Annotation the node-initialize stage reports as the node's InternalIP. */
export const NODE_IP_ANNOTATION = 'sim.cloneset-suite.io/node-ip';

/**
 * A node's own address, on loopback: kwok's NodeIP is empty unless configured, which left
 * hostNetwork pods without a pod IP; and whatever might dial a node (kubectl logs through the
 * apiserver) reaches this machine, never another.
 */
export function nodeIP(index: number): string {
  return `127.1.${Math.floor(index / 250)}.${(index % 250) + 1}`;
}

export function nodeManifests(count: number): string {
  const docs = Array.from({ length: count }, (_, i) => {
    const zone = zones[i % zones.length] ?? zones[0];
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName(i),
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0', [NODE_IP_ANNOTATION]: nodeIP(i) },
        labels: {
          'kubernetes.io/hostname': nodeName(i),
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node-role.kubernetes.io/agent': '',
          'topology.kubernetes.io/zone': zone,
          'topology.kubernetes.io/region': 'local',
          type: 'kwok',
        },
      },
      spec: {},
    };
  });
  return docs.map((d) => stringify(d)).join('---\n');
}
