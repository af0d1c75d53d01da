// The operation SDK's executor (package README, The operation SDK): reads the pod, computes the label change with the
// pure planners of core/sdk.ts and writes it as a resourceVersion-guarded JSON patch, re-reading
// and re-planning when it loses a race.
import { nanoTimestamp } from '@cloneset-suite/api-types';
import { Resources, jsonPatch, realClock, retryOnConflict, type Clock, type KubeClient, type KubeObject } from '@cloneset-suite/kube-runtime';
import { isEmpty, labelPatchOps } from '../core/label-patch.ts';
import type { Pod } from '../core/pod-state.ts';
import { needsCleaningBeforeBegin, planBegin, planFinish, planUndo, type OperationAdapter, type SdkPlan } from '../core/sdk.ts';

type PodObject = Pod & KubeObject;

export interface OpsLifecycleClientOptions {
  clock?: Clock;
  signal?: AbortSignal;
}

/** Refused by the SDK's rules (type clash, wrong type on finish): retrying does not help. */
export class OpsLifecycleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OpsLifecycleError';
  }
}

export class OpsLifecycleClient {
  private readonly pods;
  private readonly clock: Clock;
  private readonly options: OpsLifecycleClientOptions;

  constructor(client: KubeClient, options: OpsLifecycleClientOptions = {}) {
    this.options = options;
    this.pods = client.resource<PodObject>(Resources.pods);
    this.clock = options.clock ?? realClock;
  }

  /** Starts (or re-asserts) the adapter's operation on the pod; returns the pod as written. */
  begin(namespace: string, name: string, adapter: OperationAdapter): Promise<Pod> {
    return this.apply(namespace, name, (pod, now) => planBegin(pod, adapter, now));
  }

  /** Marks the adapter's operation done: the lifecycle moves on to PostCheck once every id is done. */
  finish(namespace: string, name: string, adapter: OperationAdapter): Promise<Pod> {
    return this.apply(namespace, name, (pod, now) => planFinish(pod, adapter, now));
  }

  /** Cancels the adapter's operation: the webhook removes every label of its id. */
  undo(namespace: string, name: string, adapter: OperationAdapter): Promise<Pod> {
    return this.apply(namespace, name, (pod) => planUndo(pod, adapter));
  }

  /** Undo when the id is still operating, then begin afresh (e.g. a rollout to a newer revision). */
  async beginWithCleaningOld(namespace: string, name: string, adapter: OperationAdapter): Promise<Pod> {
    const pod = await this.pods.get(namespace, name, this.signalOpt());
    if (needsCleaningBeforeBegin(pod, adapter)) await this.undo(namespace, name, adapter);
    return this.begin(namespace, name, adapter);
  }

  private signalOpt(): { signal?: AbortSignal } {
    return this.options.signal ? { signal: this.options.signal } : {};
  }

  private apply(namespace: string, name: string, planFor: (pod: Pod, now: string) => SdkPlan): Promise<Pod> {
    return retryOnConflict(
      async () => {
        const pod = await this.pods.get(namespace, name, this.signalOpt());
        const plan = planFor(pod, nanoTimestamp(this.clock.now()));
        if (!plan.ok) throw new OpsLifecycleError(plan.error);
        if (isEmpty(plan.changes)) return pod;
        const rv = pod.metadata?.resourceVersion;
        const patch = jsonPatch(labelPatchOps(pod.metadata?.labels, plan.changes), rv ? { resourceVersion: rv } : {});
        return this.pods.patch(namespace, name, patch, this.signalOpt());
      },
      { clock: this.clock, ...this.signalOpt() },
    );
  }
}
