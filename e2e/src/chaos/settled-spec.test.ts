import { describe, expect, it } from 'vitest';
import { specMismatches, type ObservedCloneSet, type ObservedPod, type WantedSpec } from './settled-spec.ts';

const want: WantedSpec = { replicas: 3, partition: 1, image: 'nginx:b', paused: false };
const cs: ObservedCloneSet = {
  generation: 7,
  spec: { replicas: 3, partition: 1, paused: false, image: 'nginx:b' },
  status: { observedGeneration: 7, replicas: 3, readyReplicas: 3, updatedReplicas: 2, updatedReadyReplicas: 2, expectedUpdatedReplicas: 2, updateRevision: 'r2' },
};
const pods: ObservedPod[] = [
  { name: 'a', revision: 'r2', image: 'nginx:b', ready: true, terminating: false },
  { name: 'b', revision: 'r2', image: 'nginx:b', ready: true, terminating: false },
  { name: 'c', revision: 'r1', image: 'nginx:a', ready: true, terminating: false },
];

describe('specMismatches', () => {
  it.each<[string, ObservedCloneSet, ObservedPod[], string | undefined, RegExp[]]>([
    ['settled at the last spec', cs, pods, 'nginx:b', []],
    ['more updated than the partition asks (raised later, no rollback gate)', { ...cs, status: { ...cs.status, updatedReplicas: 3, updatedReadyReplicas: 3 } }, pods.map((p) => ({ ...p, revision: 'r2', image: 'nginx:b' })), 'nginx:b', []],
    ['a lost replicas write', { ...cs, spec: { ...cs.spec, replicas: 4 } }, pods, 'nginx:b', [/spec.replicas is 4, want 3/]],
    ['status behind the spec', { ...cs, status: { ...cs.status, observedGeneration: 6 } }, pods, 'nginx:b', [/observedGeneration is 6, want 7/]],
    ['fewer updated than replicas - partition', { ...cs, status: { ...cs.status, updatedReplicas: 1, updatedReadyReplicas: 1 } }, [pods[0]!, { ...pods[1]!, revision: 'r1' }, pods[2]!], 'nginx:b', [/updatedReplicas 1 < /, /1 pods on the update revision < 2/]],
    ['the update revision of the other image', cs, pods, 'nginx:a', [/update revision image is nginx:a/]],
    ['a duplicate pod left over', cs, [...pods, { name: 'd', revision: 'r1', image: 'nginx:a', ready: true, terminating: false }], 'nginx:b', [/active pods is 4, want 3/]],
    ['a pod still terminating', cs, [...pods, { name: 'd', revision: 'r1', image: 'nginx:a', ready: false, terminating: true }], 'nginx:b', [/still terminating/]],
    ['still paused', { ...cs, spec: { ...cs.spec, paused: true } }, pods, 'nginx:b', [/paused is true, want false/]],
  ])('%s', (_name, observed, observedPods, image, expected) => {
    const found = specMismatches(want, observed, observedPods, image);
    expect(found).toHaveLength(expected.length);
    expected.forEach((re, i) => expect(found[i]).toMatch(re));
  });
});
