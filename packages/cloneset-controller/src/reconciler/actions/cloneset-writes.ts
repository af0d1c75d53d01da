// Writes to the CloneSet itself: the podsToDelete clean-up, and the Events the plan decided on.
import { jsonPatch } from '@cloneset-suite/kube-runtime';
import type { EventAction, UpdatePodsToDeleteAction } from '../../core/plan.ts';
import { cloneSetResource } from '../resources.ts';
import type { ExecutionContext } from './context.ts';

export type CloneSetAction = UpdatePodsToDeleteAction | EventAction;

export async function runCloneSetAction(action: CloneSetAction, ctx: ExecutionContext): Promise<void> {
  if (action.kind === 'event') {
    ctx.recorder.event(ctx.cs, action.type, action.reason, action.reason, action.message);
    return;
  }
  // Conditional on the list the plan saw (not on resourceVersion, which our own status writes
  // move): a user's concurrent edit fails the test and the next pass replans.
  const path = '/spec/scaleStrategy/podsToDelete';
  const seen = ctx.cs.spec.scaleStrategy?.podsToDelete;
  const ops = [
    ...(seen ? [{ op: 'test' as const, path, value: seen }] : []),
    // An empty list is removed, as OpenKruise omits it (OpenKruise's scaleStrategy).
    action.podsToDelete.length === 0 && seen ? { op: 'remove' as const, path } : { op: 'add' as const, path, value: action.podsToDelete },
  ];
  await ctx.client.resource(cloneSetResource).patch(ctx.cs.metadata.namespace, ctx.cs.metadata.name ?? '', jsonPatch(ops), { signal: ctx.signal });
}
