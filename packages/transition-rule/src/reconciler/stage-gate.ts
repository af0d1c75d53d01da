// The StageGate the lifecycle controller asks "may this pod leave PreCheck / PostCheck?",
// answered from the PodTransitionRule cache: synchronous, no I/O.
// Declared here structurally; the lifecycle package declares the same shape and the manager's
// wiring compiles only if the two agree.
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeObject, Manager, CachedSource } from '@cloneset-suite/kube-runtime';
import { checkStage, podsWithChangedDecision, type CheckedRule, type StageDecision } from '../core/checker.ts';
import type { LifecycleStage } from '../core/types.ts';
import { podTransitionRuleResource, type PodTransitionRuleObject } from './resources.ts';

export type { LifecycleStage, StageDecision };

export interface StageGate {
  /** Answered from cached state only (no I/O, synchronous, cheap). */
  check(pod: V1Pod, stage: LifecycleStage): StageDecision;
  /** `notify(namespace, podName)` whenever the decision for that pod may have changed; returns an unsubscribe. */
  onDecisionChange(notify: (namespace: string, podName: string) => void): () => void;
}

/** A StageGate over an informer of PodTransitionRules (any EventSource with list() fits). */
export function stageGateFromInformer(ptrs: Pick<CachedSource<PodTransitionRuleObject>, 'list' | 'addEventHandler'>): StageGate {
  return {
    check(pod, stage) {
      const namespace = pod.metadata?.namespace ?? '';
      return checkStage(pod.metadata?.name ?? '', stage, ptrs.list({ namespace }) as readonly CheckedRule[]);
    },
    onDecisionChange(notify) {
      const ring = (before: CheckedRule | undefined, after: CheckedRule | undefined): void => {
        const namespace = (after ?? before)?.metadata?.namespace ?? '';
        for (const pod of podsWithChangedDecision(before, after)) notify(namespace, pod);
      };
      return ptrs.addEventHandler({
        onAdd: (p) => ring(undefined, p as CheckedRule),
        onUpdate: (a, b) => ring(a as CheckedRule, b as CheckedRule),
        onDelete: (p) => ring(p as CheckedRule, undefined),
      });
    },
  };
}

/** The StageGate backed by the manager's shared PodTransitionRule cache. */
export function createTransitionRuleStageGate(manager: Manager, options: { namespace?: string } = {}): StageGate {
  // A pod's shard gates it on every rule of its namespace, whichever shard reconciles the rule.
  const scope = { namespace: options.namespace, acrossShards: true };
  return stageGateFromInformer(manager.informers.informerFor<PodTransitionRuleObject & KubeObject>(podTransitionRuleResource, scope));
}
