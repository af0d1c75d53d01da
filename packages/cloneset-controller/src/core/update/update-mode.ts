// How one pod moves to its target revision (OpenKruise's in-place rules): in place (images, metadata, and under
// InPlaceWorkloadVerticalScaling a resize its node can take), re-created, or, under InPlaceOnly,
// not at all. One decision for the Update step and for the surge the Scale step counts.
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import type { PlanContext } from '../context.ts';
import { revisionInPlaceDiff, revisionsRestart, type InPlaceDiff } from './inplace.ts';
import { podName } from '../pods/pod-state.ts';
import { resizeFitsNode } from './resize.ts';

export type UpdateMode =
  | { kind: 'inPlace'; diff: InPlaceDiff }
  /** `why`: said when the change alone could be made in place but this pod's node cannot take the resize. */
  | { kind: 'recreate'; why?: string }
  /** InPlaceOnly and a change that cannot be made in place: the pod stays, the message says why. */
  | { kind: 'refuse'; message: string };

/** The in-place diff between two revisions under this pass's gates and strategy. */
export function revisionDiff(ctx: PlanContext, from: V1ControllerRevision, to: V1ControllerRevision): InPlaceDiff | undefined {
  return revisionInPlaceDiff(from, to, {
    vctGate: !!ctx.gates.RecreatePodWhenChangeVCTInCloneSetGate,
    inPlaceOnly: ctx.updateType === 'InPlaceOnly',
    verticalScaling: !!ctx.gates.InPlaceWorkloadVerticalScaling,
  });
}

/** `from`: the revision the pod is at, when the CloneSet still has it. */
export function updateMode(ctx: PlanContext, pod: V1Pod, from: V1ControllerRevision | undefined, target: V1ControllerRevision): UpdateMode {
  const inPlaceOnly = ctx.updateType === 'InPlaceOnly';
  if (!inPlaceOnly && ctx.updateType !== 'InPlaceIfPossible') return { kind: 'recreate' };
  const refused = (why: string): UpdateMode => ({ kind: 'refuse', message: `pod ${podName(pod)}: update strategy is InPlaceOnly but can not update in-place${why}` });
  const diff = from ? revisionDiff(ctx, from, target) : undefined;
  if (diff) {
    const node = pod.spec?.nodeName;
    const fit = Object.keys(diff.resources).length > 0 && node ? resizeFitsNode(pod, diff.resources, ctx.nodeAllocatable?.(node)) : { fits: true as const };
    if (fit.fits) return { kind: 'inPlace', diff };
    return inPlaceOnly ? refused(`: the resize does not fit, ${fit.message}`) : { kind: 'recreate', why: `the resize does not fit, ${fit.message}` };
  }
  // A restart re-creates the pod whatever the strategy (restart.ts).
  if (inPlaceOnly && !(from && revisionsRestart(from, target))) return refused('');
  return { kind: 'recreate' };
}
