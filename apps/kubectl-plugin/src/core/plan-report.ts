// `plan`'s answer as data (its -o json|yaml shape): the CloneSet's numbers, the next pass's
// actions and waits, what resuming a paused CloneSet would do, when the controller looks again
// without a change, and what the status says that a plan cannot know (the controller's memory:
// writes its cache has not seen, retries). Built by running the controller's own planner on
// what the plugin read.
import { KRUISE_LABELS } from '@cloneset-suite/api-types';
import {
  FEATURE_GATE_DEFAULTS,
  conditionOf,
  describePlan,
  planReconcile,
  waitMessage,
  type FeatureGateName,
  type PlanError,
  type ReconcileInput,
  type ReconcilePlan,
  type Wait,
  type WaitCondition,
} from '@cloneset-suite/cloneset-controller';
import type { V1Pod } from '@kubernetes/client-node';
import { reportActions, type ReportAction } from './plan-actions.ts';
import { atRevision } from './pod-revision.ts';
import { withUpdateStrategy } from './what-if.ts';

export interface CloneSetSummary {
  namespace: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  replicas: number;
  /** Active pods the controller counts (not terminating, not finished). */
  pods: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  /** Active pods per revision label. */
  podsByRevision: Record<string, number>;
  updateStrategy: { type: string; paused: boolean; partition: number; maxUnavailable: number; maxSurge: number };
  minReadySeconds: number;
}

/** A wait of the pass as the planner made it, with the words the controller says it in and the condition it says it on. */
export type ReportWait = Wait & { message: string; condition?: WaitCondition };

export interface PassReport {
  actions: ReportAction[];
  waits: ReportWait[];
  /** The planner's errors (FailedScale, FailedUpdate). */
  errors: PlanError[];
}

export interface PlanReport extends PassReport {
  cloneSet: CloneSetSummary;
  /** Nothing to do and nothing to wait for. */
  settled: boolean;
  /** The controller plans again after this long even if nothing changes (minReadySeconds, a grace period). */
  requeueAfterSeconds?: number;
  /** A paused CloneSet: the next pass once resumed. */
  onResume?: PassReport;
  /** What the status shows that the plan cannot know, and what the plan had to do without. */
  notes: string[];
  featureGates: Record<FeatureGateName, boolean>;
  /** The planner's own summary (as the controller logs it at debug level): diff numbers, action counts, errors, waits, holds. */
  planner: Record<string, unknown>;
}

export interface ReportContext {
  gates: Record<FeatureGateName, boolean>;
  /** Why nodes could not be read, when they could not. */
  nodesUnreadable?: string;
}

function summary(input: ReconcileInput, plan: ReconcilePlan): CloneSetSummary {
  const { cs } = input;
  const { knobs } = plan.context;
  const podsByRevision: Record<string, number> = {};
  for (const p of plan.context.pods) {
    const rev = p.metadata?.labels?.[KRUISE_LABELS.controllerRevisionHash] ?? '(none)';
    podsByRevision[rev] = (podsByRevision[rev] ?? 0) + 1;
  }
  return {
    namespace: cs.metadata.namespace ?? '',
    name: cs.metadata.name ?? '',
    generation: cs.metadata.generation,
    observedGeneration: cs.status?.observedGeneration,
    replicas: knobs.replicas,
    pods: plan.context.pods.length,
    updatedReplicas: cs.status?.updatedReplicas ?? 0,
    readyReplicas: cs.status?.readyReplicas ?? 0,
    availableReplicas: cs.status?.availableReplicas ?? 0,
    currentRevision: plan.revisions.currentRevision.metadata?.name ?? '',
    updateRevision: plan.revisions.updateRevision.metadata?.name ?? '',
    podsByRevision,
    updateStrategy: {
      type: plan.context.updateType,
      paused: !!cs.spec.updateStrategy?.paused,
      partition: knobs.partition,
      maxUnavailable: knobs.maxUnavailable,
      maxSurge: knobs.maxSurge,
    },
    minReadySeconds: plan.context.minReadySeconds,
  };
}

const nameOf = (p: V1Pod): string => p.metadata?.name ?? '';

function notes(input: ReconcileInput, plan: ReconcilePlan, context: ReportContext): string[] {
  const { cs } = input;
  const out: string[] = [];
  const generation = cs.metadata.generation;
  const observed = cs.status?.observedGeneration;
  if (generation !== undefined && (observed ?? 0) < generation) {
    out.push(
      `status.observedGeneration ${observed ?? '(none)'} is behind generation ${generation}: the controller has not finished a pass on the latest spec: ` +
        'it is not running, or it waits for its cache to show its own creates and deletes (which a plan cannot see)',
    );
  }
  for (const c of cs.status?.conditions ?? []) {
    const failed = (c.type === 'FailedScale' || c.type === 'FailedUpdate') && c.status === 'True';
    const stalled = c.type === 'Progressing' && c.status === 'False';
    if (failed || stalled) out.push(`status: ${c.type} ${c.status}${c.reason ? ` (${c.reason})` : ''}: ${c.message ?? ''}`.trimEnd());
  }
  const terminating = plan.context.allPods.filter((p) => p.metadata?.deletionTimestamp).map(nameOf).sort();
  if (terminating.length > 0) out.push(`terminating, no longer counted: ${terminating.join(', ')}`);
  if (context.nodesUnreadable) out.push(`nodes not read (${context.nodesUnreadable}): a scale-in is planned without topology spread`);
  const changed = (Object.keys(context.gates) as FeatureGateName[]).filter((g) => context.gates[g] !== FEATURE_GATE_DEFAULTS[g]);
  if (changed.length > 0) out.push(`planned with feature gates ${changed.map((g) => `${g}=${context.gates[g]}`).join(',')}`);
  return out;
}

// The controller's update and scale-in orders end with the pod name, so the pods it takes do not
// depend on the order its cache lists them in: planning from API reads predicts the same pods.
function pass(input: ReconcileInput, plan: ReconcilePlan): PassReport {
  const waits = plan.waits.map((w): ReportWait => {
    const condition = conditionOf(w);
    return { ...w, message: waitMessage(w), condition };
  });
  return { actions: reportActions(input, plan), waits, errors: plan.errors };
}

export function planReport(input: ReconcileInput, context: ReportContext): PlanReport {
  const plan = planReconcile(input);
  const next = pass(input, plan);
  const paused = !!input.cs.spec.updateStrategy?.paused && !input.cs.metadata.deletionTimestamp;
  const resumed = paused ? withUpdateStrategy(input, { paused: false }) : undefined;
  const update = plan.revisions.updateRevision.metadata?.name ?? '';
  // Settled also means every pod is at the update revision (a paused or partitioned rollout is not).
  const behind = plan.context.pods.some((p) => !atRevision(p, update));
  return {
    cloneSet: summary(input, plan),
    settled: next.actions.length === 0 && next.waits.length === 0 && next.errors.length === 0 && !behind,
    ...next,
    ...(plan.requeueAfterMs !== undefined ? { requeueAfterSeconds: Math.ceil(plan.requeueAfterMs / 1000) } : {}),
    ...(resumed ? { onResume: pass(resumed, planReconcile(resumed)) } : {}),
    notes: notes(input, plan, context),
    featureGates: context.gates,
    planner: describePlan(plan),
  };
}
