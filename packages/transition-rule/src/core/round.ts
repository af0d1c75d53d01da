// One reconcile of one PodTransitionRule, pure (as Kuperator's controller does it): clean up when it is being deleted;
// otherwise evaluate both stages over the selected pods and say what to write. The shell gathers
// the inputs from its caches and in-memory webhook state and executes the plan.
import {
  PTR_PROTECTION_FINALIZER,
  compileLabelSelector,
  ptrDetailAnnotation,
  type PodTransitionRuleStatus,
} from '@cloneset-suite/api-types';
import { planAnnotations, statusChanged, type AnnotationChange } from './results.ts';
import { podName, podStage } from './stage.ts';
import { processStage } from './stage-processor.ts';
import { fitStatus } from './status-budget.ts';
import { missingReplicas } from './missing-replicas.ts';
import { LIFECYCLE_STAGES, previousResults, type OwnerLookup, type PodView, type RuleObject } from './types.ts';
import type { WebhookAction, WebhookRuleRuntime } from './webhook-runtime.ts';

export interface RoundInput {
  ptr: RuleObject;
  /** The pods of the PodTransitionRule's namespace. */
  pods: readonly PodView[];
  runtime: (ruleName: string) => WebhookRuleRuntime;
  /** The pods' owners (CloneSets), for availablePolicy's missing replicas; none when absent. */
  owners?: OwnerLookup;
  nowMs: number;
  newTraceId: () => string;
}

export interface CleanupPlan {
  kind: 'cleanup';
  annotations: AnnotationChange[];
  removeFinalizer: boolean;
}

export interface EvaluatePlan {
  kind: 'evaluate';
  addFinalizer: boolean;
  status: PodTransitionRuleStatus;
  writeStatus: boolean;
  /** Applied after the status write, so the annotation never runs ahead of the status. */
  annotations: AnnotationChange[];
  actions: WebhookAction[];
  /** Rule errors (invalid selector or value): retried with backoff. */
  errors: string[];
  requeueAfterMs?: number;
}

export type RoundPlan = CleanupPlan | EvaluatePlan;

const hasFinalizer = (ptr: RuleObject): boolean => (ptr.metadata?.finalizers ?? []).includes(PTR_PROTECTION_FINALIZER);

function annotationsLookup(pods: readonly PodView[]): (name: string) => Readonly<Record<string, string>> | undefined {
  const byName = new Map(pods.map((p) => [podName(p), p.metadata?.annotations ?? {}]));
  return (name) => byName.get(name);
}

function planCleanup(input: RoundInput): CleanupPlan {
  const key = ptrDetailAnnotation(input.ptr.metadata?.name ?? '');
  const lookup = annotationsLookup(input.pods);
  const annotations = (input.ptr.status?.targets ?? [])
    .filter((pod) => Object.hasOwn(lookup(pod) ?? {}, key))
    .map((pod) => ({ pod, key, value: undefined }));
  return { kind: 'cleanup', annotations, removeFinalizer: hasFinalizer(input.ptr) };
}

export function planRound(input: RoundInput): RoundPlan {
  const { ptr } = input;
  if (ptr.metadata?.deletionTimestamp) return planCleanup(input);
  const namespace = ptr.metadata?.namespace ?? '';
  const ptrName = ptr.metadata?.name ?? '';
  const errors: string[] = [];
  let matches: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  try {
    matches = compileLabelSelector(ptr.spec.selector);
  } catch (err) {
    errors.push(`invalid spec.selector: ${(err as Error).message}`);
    matches = () => false;
  }
  const selected = input.pods.filter((p) => matches(p.metadata?.labels)).sort((a, b) => (podName(a) < podName(b) ? -1 : 1));
  const previous = previousResults(ptr.status);
  const hasAvailablePolicy = (ptr.spec.rules ?? []).some((r) => r.availablePolicy);
  const missing = hasAvailablePolicy && input.owners ? missingReplicas(namespace, selected, input.pods, input.owners) : 0;

  let status: PodTransitionRuleStatus = {
    observedGeneration: ptr.metadata?.generation,
    targets: selected.map(podName),
    details: [],
    ruleStates: [],
  };
  const actions: WebhookAction[] = [];
  let requeueAfterMs: number | undefined;
  for (const stage of LIFECYCLE_STAGES) {
    const result = processStage({
      namespace,
      ptrName,
      stage,
      rules: ptr.spec.rules,
      selected,
      subjects: selected.filter((p) => podStage(p) === stage),
      previous,
      missingReplicas: missing,
      runtime: input.runtime,
      nowMs: input.nowMs,
      newTraceId: input.newTraceId,
    });
    status.details!.push(...result.details);
    status.ruleStates!.push(...result.ruleStates);
    actions.push(...result.actions);
    errors.push(...result.errors);
    if (result.requeueAfterMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, result.requeueAfterMs);
  }
  status.details!.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  status.targetCount = selected.length;
  status.passedCount = status.details!.filter((d) => d.passed).length;
  status.waitingCount = status.details!.length - status.passedCount;
  status = fitStatus(status);
  const writeStatus = statusChanged(ptr.status, status);
  if (writeStatus) status.updateTime = new Date(input.nowMs).toISOString();
  else if (ptr.status?.updateTime) status.updateTime = ptr.status.updateTime;
  return {
    kind: 'evaluate',
    addFinalizer: !hasFinalizer(ptr),
    status,
    writeStatus,
    annotations: planAnnotations({ ptrName, status, previousTargets: ptr.status?.targets ?? [], annotationsOf: annotationsLookup(input.pods) }),
    actions,
    errors,
    requeueAfterMs,
  };
}
