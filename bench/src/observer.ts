// Watches one namespace from the bench process: the pods (to time "all Ready" as a watcher sees
// it, the same way for both controllers) and the writes a controller leaves behind in the
// namespace (pod creations and deletions, workload objects, its Events). The observed counts
// let the kube-controller-manager, whose own metrics also count other tenants' work, be
// compared with the CloneSet controller on the same footing.
import { SharedIndexInformer, type DeepReadonly, type GroupVersionResource, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, deploymentResource, eventResource, now, podResource, replicaSetResource, revisionResource } from './kube.ts';
import { GoalTally, type PodGoal } from './pod-goal.ts';
import { isTerminating, type Pod } from './pods.ts';
import { reached } from './timeline.ts';

/** The milestones a pod has reached as seen now; `isNew`: it was created since the last reset. */
export type MilestonesOf = (pod: Pod, isNew: boolean) => readonly string[];

/** The scale-out's milestones, for live pods. */
const scaleOutMilestones: MilestonesOf = (pod) => (isTerminating(pod) ? [] : reached(pod));

export interface ObservedWrites {
  podCreates: number;
  podDeletes: number;
  /** Creates and changes of Deployments, ReplicaSets, CloneSets and ControllerRevisions. */
  workloadWrites: number;
  /** Event creations and series updates, by reporting component. */
  eventsByComponent: Record<string, number>;
}

interface EventLike extends KubeObject {
  reportingComponent?: string;
  source?: { component?: string };
}

const workloadResources: readonly GroupVersionResource[] = [deploymentResource, replicaSetResource, cloneSetResource, revisionResource];

export interface ObserverOptions {
  /** Watch only the pods these labels select (e.g. one CloneSet's among 50,000). */
  podLabelSelector?: string;
  /** Watch the pods only: no workload objects or Events, so no write counts. */
  podsOnly?: boolean;
}

interface Waiter {
  tally: GoalTally;
  resolve: (atMs: number) => void;
}

export class NamespaceObserver {
  private readonly abort = new AbortController();
  private readonly podInformer: SharedIndexInformer<KubeObject>;
  private readonly informers: SharedIndexInformer<KubeObject>[] = [];
  private readonly waiters = new Set<Waiter>();
  private counts: ObservedWrites = emptyCounts();
  /** Per pod uid, the monotonic time each milestone was first seen (since the last reset). */
  private milestones = new Map<string, Partial<Record<string, number>>>();
  /** Pods created since the last reset. */
  private newPods = new Set<string>();
  private milestonesOf: MilestonesOf = scaleOutMilestones;

  private constructor(namespace: string, { podLabelSelector, podsOnly = false }: ObserverOptions) {
    const client = benchClient();
    const informer = (gvr: GroupVersionResource, labelSelector?: string): SharedIndexInformer<KubeObject> => {
      const i = new SharedIndexInformer<KubeObject>({ client: client.resource(gvr), namespace, ...(labelSelector ? { labelSelector } : {}) });
      this.informers.push(i);
      return i;
    };
    this.podInformer = informer(podResource, podLabelSelector);
    this.podInformer.addEventHandler({
      onAdd: (pod, initial) => {
        if (!initial) {
          this.counts.podCreates++;
          if (pod.metadata?.uid) this.newPods.add(pod.metadata.uid);
          this.recordMilestones(pod);
        }
        this.evaluate(pod, pod);
      },
      onUpdate: (old, pod) => {
        if (!old.metadata?.deletionTimestamp && pod.metadata?.deletionTimestamp) this.counts.podDeletes++;
        if (old !== pod) {
          this.recordMilestones(pod);
          this.evaluate(pod, pod);
        }
      },
      onDelete: (pod) => {
        if (!pod.metadata?.deletionTimestamp) this.counts.podDeletes++;
        this.evaluate(pod, undefined);
      },
    });
    if (podsOnly) return;
    for (const gvr of workloadResources) {
      informer(gvr).addEventHandler({
        onAdd: (_o, initial) => void (initial ? undefined : this.counts.workloadWrites++),
        onUpdate: (old, obj) => void (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion ? this.counts.workloadWrites++ : undefined),
      });
    }
    const byComponent = (e: DeepReadonly<EventLike>): void => {
      const component = e.reportingComponent || e.source?.component || 'unknown';
      this.counts.eventsByComponent[component] = (this.counts.eventsByComponent[component] ?? 0) + 1;
    };
    informer(eventResource).addEventHandler({
      onAdd: (e, initial) => void (initial ? undefined : byComponent(e)),
      onUpdate: (old, e) => void (old.metadata?.resourceVersion !== e.metadata?.resourceVersion ? byComponent(e) : undefined),
    });
  }

  static async start(namespace: string, options: ObserverOptions = {}): Promise<NamespaceObserver> {
    const o = new NamespaceObserver(namespace, options);
    for (const i of o.informers) void i.run(o.abort.signal).catch(() => undefined);
    await Promise.all(o.informers.map((i) => i.waitForSync(o.abort.signal)));
    return o;
  }

  /**
   * Resolves with the monotonic time (ms) of the pod event after which `goal` was first met
   * (at once if it is met now); rejects after `timeoutMs`. Each pod event costs O(1) per waiter.
   */
  waitFor(what: string, goal: PodGoal, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const tally = new GoalTally(goal);
      for (const pod of this.podInformer.list()) tally.set(podKey(pod), pod);
      const waiter: Waiter = {
        tally,
        resolve: (atMs) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(atMs);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(waiter);
      if (tally.reached()) waiter.resolve(now());
    });
  }

  /** Counts since the last reset. */
  writes(): ObservedWrites {
    return { ...this.counts, eventsByComponent: { ...this.counts.eventsByComponent } };
  }

  resetCounts(): void {
    this.counts = emptyCounts();
    this.milestones = new Map();
    this.newPods = new Set();
  }

  /** Which milestones the next runs record (the scale-out's until told otherwise). */
  trackMilestones(milestonesOf: MilestonesOf): void {
    this.milestonesOf = milestonesOf;
  }

  /** Milestones of the pods seen since the last reset, in monotonic ms. */
  podMilestones(): Partial<Record<string, number>>[] {
    return [...this.milestones.values()].map((m) => ({ ...m }));
  }

  stop(): void {
    this.abort.abort();
    for (const w of this.waiters) this.waiters.delete(w);
  }

  private recordMilestones(pod: Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    const reachedNow = this.milestonesOf(pod, this.newPods.has(uid));
    if (reachedNow.length === 0) return;
    const at = now();
    let seen = this.milestones.get(uid);
    if (!seen) this.milestones.set(uid, (seen = {}));
    for (const m of reachedNow) seen[m] ??= at;
  }

  /** `pod` (its key) is now `current` (undefined: deleted). */
  private evaluate(pod: Pod, current: Pod | undefined): void {
    if (this.waiters.size === 0) return;
    const at = now();
    const key = podKey(pod);
    for (const w of [...this.waiters]) {
      w.tally.set(key, current);
      if (w.tally.reached()) w.resolve(at);
    }
  }
}

const podKey = (pod: Pod): string => pod.metadata?.uid ?? pod.metadata?.name ?? '';

function emptyCounts(): ObservedWrites {
  return { podCreates: 0, podDeletes: 0, workloadWrites: 0, eventsByComponent: {} };
}

/** Observed writes attributable to one controller: pods, workload objects and its own Events. */
export function controllerWrites(w: ObservedWrites, components: readonly string[], ownWrites: number): number {
  const events = components.reduce((sum, c) => sum + (w.eventsByComponent[c] ?? 0), 0);
  return w.podCreates + w.podDeletes + Math.max(0, w.workloadWrites - ownWrites) + events;
}
