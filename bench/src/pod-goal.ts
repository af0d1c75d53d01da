// What a scenario waits for, said of each pod (so a watcher keeps a count per event instead of
// walking every pod on every event: at 10,000 pods and tens of thousands of events, that walk was
// billions of steps of the bench process, on the CPUs the measured processes share).
import { isReady, isTerminating, runsImage, type Pod } from './pods.ts';

export interface PodGoal {
  /**
   * Live (not terminating) pods: exactly `replicas` of them, or at least that many, every one
   * meeting `each`; or ('matching') at least `replicas` of them meeting `each`, whatever the others.
   */
  live: 'exactly' | 'atLeast' | 'matching';
  replicas: number;
  /** What the live pods must be (absent: any live pod will do). */
  each?: (pod: Pod) => boolean;
}

/** Exactly `replicas` live pods, every one Ready (on `image` when given: spec and container status). */
export const allReadyOn = (replicas: number, image?: string): PodGoal => ({
  live: 'exactly',
  replicas,
  each: (p) => isReady(p) && (image === undefined || runsImage(p, image)),
});

/** At least `replicas` live pods exist (created, maybe not scheduled yet). */
export const allCreated = (replicas: number): PodGoal => ({ live: 'atLeast', replicas });

/** At least `replicas` live pods, every one bound to a node. */
export const allScheduled = (replicas: number): PodGoal => ({ live: 'atLeast', replicas, each: (p) => !!p.spec?.nodeName });

/** At least `count` live pods meet `where`, whatever the others are. */
export const someMatching = (count: number, where: (pod: Pod) => boolean): PodGoal => ({ live: 'matching', replicas: count, each: where });

/** Whether `pods` meet the goal now (the definition the tally keeps up incrementally). */
export function goalReached(goal: PodGoal, pods: readonly Pod[]): boolean {
  const live = pods.filter((p) => !isTerminating(p));
  if (goal.live === 'matching') return live.filter((p) => goal.each === undefined || goal.each(p)).length >= goal.replicas;
  const enough = goal.live === 'exactly' ? live.length === goal.replicas : live.length >= goal.replicas;
  return enough && (goal.each === undefined || live.every(goal.each));
}

/** A goal's standing over a changing set of pods, kept per pod event in O(1). */
export class GoalTally {
  readonly goal: PodGoal;
  /** Live pods by key, and whether each meets `goal.each`. */
  private readonly live = new Map<string, boolean>();
  private failing = 0;

  constructor(goal: PodGoal) {
    this.goal = goal;
  }

  /** The pod under `key` is now `pod` (undefined: gone). */
  set(key: string, pod: Pod | undefined): void {
    const was = this.live.get(key);
    if (was === false) this.failing--;
    this.live.delete(key);
    if (!pod || isTerminating(pod)) return;
    const meets = this.goal.each === undefined || this.goal.each(pod);
    this.live.set(key, meets);
    if (!meets) this.failing++;
  }

  reached(): boolean {
    const n = this.live.size;
    if (this.goal.live === 'matching') return n - this.failing >= this.goal.replicas;
    const enough = this.goal.live === 'exactly' ? n === this.goal.replicas : n >= this.goal.replicas;
    return enough && this.failing === 0;
  }
}
