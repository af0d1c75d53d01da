// Which revision a pod is at: its controller-revision-hash label names a revision by its full
// name, or only by its hash under the CloneSetShortHash gate (OpenKruise reads both).
import { KRUISE_LABELS } from '@cloneset-suite/api-types';
import type { V1Pod } from '@kubernetes/client-node';

const hashOf = (revision: string): string => revision.slice(revision.lastIndexOf('-') + 1);

export function atRevision(pod: V1Pod | undefined, name: string): boolean {
  const label = pod?.metadata?.labels?.[KRUISE_LABELS.controllerRevisionHash] ?? '';
  return label !== '' && name !== '' && (label === name || hashOf(label) === hashOf(name));
}
