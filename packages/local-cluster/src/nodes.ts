// The fake nodes: spread over three zones, untainted, managed by kwok (annotation).
import { stringify } from 'yaml';

export const zones = ['zone-a', 'zone-b', 'zone-c'] as const;

export function nodeName(index: number): string {
  return `kwok-node-${index}`;
}

export function nodeManifests(count: number): string {
  const docs = Array.from({ length: count }, (_, i) => {
    const zone = zones[i % zones.length] ?? zones[0];
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: nodeName(i),
        annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
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
