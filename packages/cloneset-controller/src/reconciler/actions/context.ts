// What every action family of the executor is given, and what it reports back: the CloneSet the
// pass is about, its client, recorder and expectations, the pods the plan saw.
import { withShardLabelOf, type Clock, type DeepReadonly, type EventRecorder, type KubeClient, type KubeObject, type Logger, type ScaleExpectations } from '@cloneset-suite/kube-runtime';
import type { CloneSetLike } from '../../core/types.ts';
import type { ImagePullJobSupport } from '../image-pull-jobs.ts';

export interface ExecutionContext {
  client: KubeClient;
  /** The manager's clock: the time written into labels and annotations. */
  clock: Clock;
  recorder: EventRecorder;
  expectations: ScaleExpectations;
  logger: Logger;
  /** The CloneSet key (namespace/name) the expectations are kept under. */
  key: string;
  cs: CloneSetLike & KubeObject;
  /** Pods from the cache by name (resourceVersion preconditions, finalizer merges). */
  podsByName: ReadonlyMap<string, DeepReadonly<KubeObject>>;
  signal: AbortSignal;
  /** Called with the resourceVersion every pod write returned (the expectations that stop a pass planning on a stale cache). */
  podWritten?: (name: string, resourceVersion: string | undefined) => void;
  /** Image pre-download bookkeeping (OpenKruise's update features); its actions are only planned when this is set. */
  imagePullJobs?: ImagePullJobSupport;
  /** On a shard of this ControllerRing, what the pass creates carries its CloneSet's shard label. */
  ring?: string;
}

/** Per-plan bookkeeping: the version of each pod our own writes in this plan produced. */
export interface PlanState {
  written: Map<string, string>;
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * An object this pass creates, labelled with its CloneSet's shard on a ring: the shard then sees
 * its own creations without the sharder's webhook (which labels them too when it runs).
 */
export function asCreated(ctx: ExecutionContext, obj: unknown): KubeObject {
  return withShardLabelOf(obj as KubeObject, ctx.cs, ctx.ring);
}

/** Create options in the CloneSet's namespace. */
export function inNamespace(ctx: ExecutionContext): { namespace?: string; signal: AbortSignal } {
  return { namespace: ctx.cs.metadata.namespace, signal: ctx.signal };
}
