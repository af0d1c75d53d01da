// What the scenarios read off a pod: readiness, termination, the image it runs.
import type { DeepReadonly } from '@cloneset-suite/kube-runtime';

export interface PodLike {
  metadata?: { name?: string; uid?: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec?: { nodeName?: string; containers?: { name: string; image?: string }[] };
  status?: { conditions?: { type: string; status: string }[]; containerStatuses?: { name: string; image?: string; ready?: boolean; state?: { running?: object } }[] };
}

export type Pod = DeepReadonly<PodLike>;

export const isTerminating = (p: Pod): boolean => p.metadata?.deletionTimestamp !== undefined;

export const isReady = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The pod asks for `image` in every container and its (simulated) kubelet runs it there. */
export function runsImage(p: Pod, image: string): boolean {
  const containers = p.spec?.containers ?? [];
  const statuses = p.status?.containerStatuses ?? [];
  return (
    containers.length > 0 &&
    containers.every((c) => c.image === image) &&
    containers.every((c) => statuses.find((s) => s.name === c.name)?.image === image)
  );
}
