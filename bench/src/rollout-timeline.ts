// Where a rollout's time goes: per pod, when a watcher first saw each step of its move to the new
// image (the old pod marked or deleted, a new pod created and scheduled, the gate False, the spec
// updated, the containers running the new image, the gate True, the label back to Normal, Ready), and the gaps between a pod becoming
// available and the next write of the rollout, which show how long a batch waits for the next.
import { KRUISE_LABELS, KRUISE_READINESS_GATES, LIFECYCLE_STATES } from '@cloneset-suite/api-types';
import { isReady, isTerminating, runsImage, type Pod } from './pods.ts';

export const ROLLOUT_MILESTONES = [
  'marked specified-delete',
  'old pod deleted',
  'new pod created',
  'scheduled',
  'gate False',
  'spec updated',
  'containers running new image',
  'gate True',
  'state Normal',
  'Ready',
  'available',
] as const;
export type RolloutMilestone = (typeof ROLLOUT_MILESTONES)[number];

/** Milestones that are a write of the rollout (by the controller, or its pod create/delete). */
const WRITES: readonly RolloutMilestone[] = ['marked specified-delete', 'old pod deleted', 'new pod created', 'gate False', 'spec updated'];

const GATE = KRUISE_READINESS_GATES.inPlaceUpdateReady;

const specOn = (p: Pod, image: string): boolean => (p.spec?.containers ?? []).length > 0 && (p.spec?.containers ?? []).every((c) => c.image === image);

/**
 * Which milestones a pod has reached, as a watcher sees it now. `isNew`: the pod was created
 * after the rollout began (its create is the write, not a spec update). A pod without the
 * CloneSet's lifecycle label (the Deployment's) is available once Ready on the new image.
 */
export function rolloutReached(p: Pod, image: string, isNew: boolean): RolloutMilestone[] {
  const out: RolloutMilestone[] = [];
  const labels = p.metadata?.labels ?? {};
  const gate = p.status?.conditions?.find((c) => c.type === GATE)?.status;
  const onNew = specOn(p, image);
  if (!onNew && Object.hasOwn(labels, KRUISE_LABELS.specifiedDelete)) out.push('marked specified-delete');
  if (!onNew && isTerminating(p)) out.push('old pod deleted');
  if (isTerminating(p)) return out;
  if (isNew) out.push('new pod created');
  if (isNew && p.spec?.nodeName) out.push('scheduled');
  if (!isNew && gate === 'False') out.push('gate False');
  if (!onNew) return out;
  if (!isNew) out.push('spec updated');
  const onNewImage = runsImage(p, image);
  const running = (p.status?.containerStatuses ?? []).every((c) => c.state?.running !== undefined);
  if (onNewImage && running) out.push('containers running new image');
  if (gate === 'True') out.push('gate True');
  const state = labels[KRUISE_LABELS.lifecycleState];
  if (state === LIFECYCLE_STATES.normal) out.push('state Normal');
  const ready = isReady(p) && onNewImage;
  if (ready) out.push('Ready');
  if (ready && (state === undefined || state === LIFECYCLE_STATES.normal)) out.push('available');
  return out;
}

export interface BatchGaps {
  /** From the patch to the rollout's first write. */
  firstWriteMs: number;
  /** Each time a write followed one or more pods becoming available: from the last of them to the write. */
  gapsMs: number[];
}

/**
 * The waits between batches: walking the pods' availability and write times in order, every
 * write that comes after one or more pods became available (with no write between) closes a
 * gap from the last of them. Ties count the pod available first (a gap of 0).
 */
export function batchGaps(perPod: readonly Partial<Record<RolloutMilestone, number>>[]): BatchGaps {
  const events: { at: number; write: boolean }[] = [];
  for (const p of perPod) {
    const writes = WRITES.map((m) => p[m]).filter((t): t is number => t !== undefined);
    if (writes.length > 0) events.push({ at: Math.min(...writes), write: true });
    if (p.available !== undefined) events.push({ at: p.available, write: false });
  }
  events.sort((a, b) => a.at - b.at || Number(a.write) - Number(b.write));
  const gapsMs: number[] = [];
  let lastAvailable: number | undefined;
  for (const e of events) {
    if (!e.write) lastAvailable = e.at;
    else if (lastAvailable !== undefined) {
      gapsMs.push(e.at - lastAvailable);
      lastAvailable = undefined;
    }
  }
  const firstWrite = events.find((e) => e.write);
  return { firstWriteMs: firstWrite?.at ?? Number.NaN, gapsMs };
}
