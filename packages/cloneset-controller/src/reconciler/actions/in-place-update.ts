// The in-place update write (OpenKruise's in-place update), conditional on a resourceVersion so it cannot land on a
// pod that changed under the plan. A conflict (the kubelet or our own condition write moved the
// version) re-reads the pod and retries while it is still the same pod at the revision the plan
// saw; otherwise the next pass replans.
import { retryOnConflict, strategicMergePatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import { REVISION_LABEL } from '../../core/keys.ts';
import type { InPlaceUpdateAction } from '../../core/plan.ts';
import { podResource } from '../resources.ts';
import type { ExecutionContext, PlanState } from './context.ts';

export async function inPlaceUpdate(action: InPlaceUpdateAction, ctx: ExecutionContext, state: PlanState): Promise<KubeObject> {
  const ns = ctx.cs.metadata.namespace;
  const pods = ctx.client.resource<KubeObject>(podResource);
  const cached = ctx.podsByName.get(action.name);
  const containers = Object.entries(action.images).map(([name, image]) => ({ name, image }));
  const body = (resourceVersion: string | undefined) =>
    strategicMergePatch({
      metadata: { labels: action.labels, annotations: action.annotations, resourceVersion },
      ...(containers.length ? { spec: { containers } } : {}),
    });
  let version = state.written.get(action.name) ?? cached?.metadata?.resourceVersion;
  return retryOnConflict(
    async (attempt) => {
      if (attempt > 1) {
        const fresh = await pods.get(ns, action.name, { signal: ctx.signal });
        const sameRevision = fresh.metadata?.labels?.[REVISION_LABEL] === cached?.metadata?.labels?.[REVISION_LABEL];
        if (fresh.metadata?.uid !== cached?.metadata?.uid || fresh.metadata?.deletionTimestamp || !sameRevision) {
          throw new Error(`pod ${action.name} changed under the plan; replanning`);
        }
        version = fresh.metadata?.resourceVersion;
      }
      return pods.patch(ns, action.name, body(version), { signal: ctx.signal });
    },
    { signal: ctx.signal },
  );
}
