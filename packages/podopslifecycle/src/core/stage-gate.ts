// The StageGate port: "may this pod leave PreCheck / PostCheck?".
// The transition-rule engine implements it; the controller-manager plugs it in. Declared here
// (not imported) so neither package depends on the other: structural typing makes them agree.
import type { Pod } from './pod-state.ts';

export type LifecycleStage = 'PreCheck' | 'PostCheck';

export interface StageDecision {
  /** True when the pod may leave `stage` now. */
  passed: boolean;
  /** Why not (empty when passed). */
  message: string;
}

export interface StageGate {
  /** Answered from cached state only (no I/O, synchronous, cheap): called on every lifecycle reconcile. */
  check(pod: Pod, stage: LifecycleStage): StageDecision;
  /** The gate calls notify whenever its decision for that pod may have changed; returns an unsubscribe. */
  onDecisionChange(notify: (namespace: string, podName: string) => void): () => void;
}

/** Passes every pod and never notifies: the gate until the transition-rule engine is plugged in. */
export const passAllStageGate: StageGate = {
  check: () => ({ passed: true, message: '' }),
  onDecisionChange: () => () => undefined,
};
