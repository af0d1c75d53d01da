// What the next pass waits for, per pod where it applies: a pause, OnDelete, the partition, the
// maxUnavailable budget (and which pods use it up, and why), minReadySeconds, OpenKruise
// lifecycle hooks, the PodOpsLifecycle phase of controlled pods (a PodTransitionRule rejecting
// them, a protection finalizer), and the planner's own errors and waits. Which pods only the
// budget holds back is found by planning the pass again without one (what-if.ts).
import {
  KRUISE_LABELS,
  LIFECYCLE_STATES,
  POL_CLONESET_ID,
  POL_OPERATION_TYPES,
  POL_PROTECTION_FINALIZER_PREFIX,
  isKusionControlled,
  ptrDetailsOf,
} from '@cloneset-suite/api-types';
import type { ReconcileInput, ReconcilePlan } from '@cloneset-suite/cloneset-controller';
import { lacksOperationType, phaseOf, readLifecycle, typeOf } from '@cloneset-suite/podopslifecycle';
import type { V1Pod } from '@kubernetes/client-node';
import { podsActedOn, podsDisrupted } from './plan-actions.ts';
import { unavailability } from './pod-availability.ts';
import { atRevision } from './pod-revision.ts';
import { planWithoutBudget } from './what-if.ts';

export type WaitKind =
  | 'deleting'
  | 'paused'
  | 'onDelete'
  | 'refresh'
  | 'scaleFirst'
  | 'partition'
  | 'maxUnavailable'
  | 'scaleMaxUnavailable'
  | 'scaleIn'
  | 'minReadySeconds'
  | 'lifecycleHook'
  | 'podTransitionRule'
  | 'podOpsLifecycle'
  | 'protectionFinalizer'
  | 'controller'
  | 'error';

export interface ReportWait {
  kind: WaitKind;
  /** The pods concerned, sorted. */
  pods?: string[];
  message: string;
  /** podTransitionRule: `<PodTransitionRule>/<rule>`, the stage it rejects at, and its reason. */
  rule?: string;
  stage?: string;
  reason?: string;
  /** minReadySeconds: seconds until the pod counts as available. */
  availableInSeconds?: number;
  /** controller and error: the condition the controller reports it on (FailedScale, FailedUpdate). */
  condition?: string;
}

const nameOf = (p: V1Pod): string => p.metadata?.name ?? '';
const sorted = (names: Iterable<string>): string[] => [...new Set(names)].sort();
const list = (names: readonly string[]): string => names.join(', ');

const protectionFinalizers = (pod: V1Pod): string[] => (pod.metadata?.finalizers ?? []).filter((f) => f.startsWith(POL_PROTECTION_FINALIZER_PREFIX));

/** PodTransitionRule rejections recorded on the pod for a stage. */
function rejections(pod: V1Pod, stage: string): { rule: string; reason: string }[] {
  return ptrDetailsOf(pod.metadata?.annotations).flatMap((d) => {
    if (!d.readable || d.passed !== false || d.stage !== stage) return [];
    if (d.rejections.length === 0) return [{ rule: d.transitionRule, reason: '' }];
    return d.rejections.map((r) => ({ rule: `${d.transitionRule}/${r.ruleName ?? '?'}`, reason: r.reason ?? '' }));
  });
}

/** Controlled pods the CloneSet's operation (lifecycle id `cloneset`) waits on, and PostCheck holds of any id. */
function podOpsLifecycleWaits(pods: readonly V1Pod[], acted: ReadonlySet<string>): { waits: ReportWait[]; waiting: Set<string> } {
  const waits: ReportWait[] = [];
  const waiting = new Set<string>();
  for (const pod of pods) {
    if (!isKusionControlled(pod.metadata?.labels)) continue;
    const name = nameOf(pod);
    const view = readLifecycle(pod.metadata?.labels);
    const ours = view.labelsById.get(POL_CLONESET_ID);
    const operation = `cloneset/${typeOf(ours) ?? '?'}`;
    if (ours?.operating !== undefined && ours.operate === undefined && !acted.has(name)) {
      waiting.add(name);
      const phase = lacksOperationType(ours) ? 'NoOperationType' : (phaseOf(ours) ?? 'PreCheck');
      if (phase === 'PreCheck') {
        const rejected = rejections(pod, 'PreCheck');
        for (const r of rejected) {
          waits.push({ kind: 'podTransitionRule', pods: [name], rule: r.rule, stage: 'PreCheck', reason: r.reason, message: `${name}: PodTransitionRule ${r.rule} rejects it in PreCheck of ${operation}${r.reason ? `: ${r.reason}` : ''}` });
        }
        if (rejected.length === 0) waits.push({ kind: 'podOpsLifecycle', pods: [name], message: `${name}: in PreCheck of ${operation}, waiting for the PodTransitionRules selecting it (none has rejected it yet)` });
      } else if (phase === 'Preparing') {
        const finalizers = protectionFinalizers(pod);
        waits.push(
          finalizers.length > 0
            ? { kind: 'protectionFinalizer', pods: [name], message: `${name}: in Preparing of ${operation}, waiting for finalizer ${list(finalizers)} to be removed by the controller that put it there` }
            : { kind: 'podOpsLifecycle', pods: [name], message: `${name}: in Preparing of ${operation}, waiting for the lifecycle controller to take it offline and grant operate` },
        );
      } else {
        waits.push({ kind: 'podOpsLifecycle', pods: [name], message: `${name}: in ${phase} of ${operation}, waiting for the lifecycle controller to grant operate` });
      }
    } else if (ours?.operate !== undefined && ours.operating !== undefined && protectionFinalizers(pod).length > 0 && !acted.has(name)) {
      waiting.add(name);
      waits.push({ kind: 'protectionFinalizer', pods: [name], message: `${name}: ${operation} may operate, but finalizer ${list(protectionFinalizers(pod))} still protects it` });
    }
    // A PostCheck rejection keeps the pod unavailable, whichever operation it is in.
    for (const id of view.ids) {
      if (phaseOf(view.labelsById.get(id) ?? {}) !== 'PostCheck') continue;
      for (const r of rejections(pod, 'PostCheck')) {
        waits.push({ kind: 'podTransitionRule', pods: [name], rule: r.rule, stage: 'PostCheck', reason: r.reason, message: `${name}: PodTransitionRule ${r.rule} rejects it in PostCheck of ${id}/${typeOf(view.labelsById.get(id)) ?? '?'}${r.reason ? `: ${r.reason}` : ''}` });
      }
    }
  }
  return { waits, waiting };
}

type Hook = { labelsHandler?: Record<string, string>; finalizersHandler?: string[] };

function hookParts(hook: Hook): { labels: [string, string][]; finalizers: string[] } {
  return { labels: Object.entries(hook.labelsHandler ?? {}), finalizers: hook.finalizersHandler ?? [] };
}

function hookedBy(pod: V1Pod, hook: Hook, all: boolean): boolean {
  const { labels, finalizers } = hookParts(hook);
  const checks = [...labels.map(([k, v]) => pod.metadata?.labels?.[k] === v), ...finalizers.map((f) => (pod.metadata?.finalizers ?? []).includes(f))];
  return all ? checks.every(Boolean) : checks.some(Boolean);
}

function hookText(hook: Hook): string {
  const { labels, finalizers } = hookParts(hook);
  return [...finalizers.map((f) => `finalizer ${f}`), ...labels.map(([k, v]) => `label ${k}=${v}`)].join(', ');
}

/** OpenKruise lifecycle hooks (spec.lifecycle) holding pods in a Preparing state. */
function hookWaits(input: ReconcileInput, pods: readonly V1Pod[]): { waits: ReportWait[]; waiting: Set<string> } {
  const lifecycle = input.cs.spec.lifecycle;
  const waits: ReportWait[] = [];
  const waiting = new Set<string>();
  const state = (p: V1Pod): string => p.metadata?.labels?.[KRUISE_LABELS.lifecycleState] ?? '';
  const holds: { hook: string; def: Hook | undefined; state: string; held: (p: V1Pod, h: Hook) => boolean; what: string }[] = [
    { hook: 'preDelete', def: lifecycle?.preDelete, state: LIFECYCLE_STATES.preparingDelete, held: (p, h) => hookedBy(p, h, false), what: 'until its owner removes' },
    { hook: 'inPlaceUpdate', def: lifecycle?.inPlaceUpdate, state: LIFECYCLE_STATES.preparingUpdate, held: (p, h) => hookedBy(p, h, false), what: 'until its owner removes' },
    { hook: 'preNormal', def: lifecycle?.preNormal, state: LIFECYCLE_STATES.preparingNormal, held: (p, h) => !hookedBy(p, h, true), what: 'until its owner adds' },
  ];
  for (const h of holds) {
    if (!h.def) continue;
    const held = sorted(pods.filter((p) => state(p) === h.state && h.held(p, h.def!)).map(nameOf));
    if (held.length === 0) continue;
    held.forEach((n) => waiting.add(n));
    waits.push({ kind: 'lifecycleHook', pods: held, message: `lifecycle hook ${h.hook} holds ${list(held)} in ${h.state} ${h.what} ${hookText(h.def)}` });
  }
  return { waits, waiting };
}

/** The budget: which pods are unavailable now (and why), which this pass takes, and which it holds back. */
function budgetWait(plan: ReconcilePlan, heldBack: readonly string[], taking: readonly string[], nowMs: number): ReportWait {
  const { knobs, minReadySeconds } = plan.context;
  const unavailable = plan.context.pods.flatMap((p) => {
    const u = unavailability(p, minReadySeconds, nowMs);
    return u ? [`${nameOf(p)} (${u.reason})`] : [];
  });
  const used = [
    ...(unavailable.length > 0 ? [`unavailable now: ${unavailable.sort().join(', ')}`] : []),
    ...(taking.length > 0 ? [`taken by this pass: ${list(taking)}`] : []),
  ];
  return { kind: 'maxUnavailable', pods: [...heldBack], message: `${list(heldBack)}: waiting for the maxUnavailable budget (${knobs.maxUnavailable} pod(s)); ${used.join('; ') || 'used up'}` };
}

/** Why pods not at the update revision stay where they are, when the Update step did not choose them. */
function updateStepWaits(plan: ReconcilePlan, settled: ReadonlySet<string>, budgetKnown: boolean): ReportWait[] {
  const ctx = plan.context;
  const update = plan.revisions.updateRevision.metadata?.name ?? '';
  const behind = ctx.pods.filter((p) => !atRevision(p, update) && !settled.has(nameOf(p)));
  const names = sorted(behind.map(nameOf));
  const sync = plan.sync;
  if (sync.step === 'none') return [{ kind: 'deleting', message: 'the CloneSet is being deleted: pods are neither created nor updated' }];
  if (names.length === 0) return [];
  if (sync.step === 'scale') return [{ kind: 'scaleFirst', pods: names, message: `${list(names)}: the Update step runs on a later pass; this pass creates or deletes pods first` }];
  if ('stoppedBy' in sync.update) {
    switch (sync.update.stoppedBy) {
      case 'paused':
        return [{ kind: 'paused', pods: names, message: `${list(names)}: spec.updateStrategy.paused is true; no pod is updated until the rollout resumes` }];
      case 'onDelete':
        return [{ kind: 'onDelete', pods: names, message: `${list(names)}: updateStrategy OnDelete; each moves to revision ${update} only when it is deleted` }];
      case 'refresh':
        return [{ kind: 'refresh', pods: names, message: `${list(names)}: this pass writes pod lifecycle states and labels first; the next pass chooses pods to update` }];
    }
  }
  const { partition } = ctx.knobs;
  if (partition <= 0) return [];
  if (!budgetKnown) {
    // Without a budget the pass would delete pods first, so it cannot say which of these the budget holds.
    return [{ kind: 'partition', pods: names, message: `${list(names)}: partition ${partition} keeps ${partition} pod(s) at old revisions; the maxUnavailable budget holds the others, if any` }];
  }
  // Not chosen with the budget or without it: the partition keeps them.
  const byRevision = new Map<string, string[]>();
  for (const p of behind) {
    const rev = p.metadata?.labels?.[KRUISE_LABELS.controllerRevisionHash] ?? '(none)';
    byRevision.set(rev, [...(byRevision.get(rev) ?? []), nameOf(p)]);
  }
  return [
    {
      kind: 'partition',
      pods: names,
      message: `partition ${partition} keeps ${[...byRevision].map(([rev, pods]) => `${list(sorted(pods))} at revision ${rev}`).join('; ')}`,
    },
  ];
}

function scaleStepWaits(plan: ReconcilePlan): ReportWait[] {
  if (plan.sync.step === 'none') return [];
  const d = plan.sync.scaleDiffs;
  const ctx = plan.context;
  const waits: ReportWait[] = [];
  if (d.scaleUpNum > d.scaleUpLimit) {
    waits.push({
      kind: 'scaleMaxUnavailable',
      message: `${d.scaleUpNum} pod(s) to create, ${d.scaleUpLimit} now: spec.scaleStrategy.maxUnavailable ${ctx.knobs.scaleMaxUnavailable} counts ${d.tallies.totalUnavailable} unavailable pod(s)`,
    });
  }
  const specifiedOrPreparing = ctx.pods.filter(
    (p) => p.metadata?.labels?.[KRUISE_LABELS.specifiedDelete] !== undefined || ctx.podsToDelete.has(nameOf(p)) || p.metadata?.labels?.[KRUISE_LABELS.lifecycleState] === LIFECYCLE_STATES.preparingDelete,
  );
  // Scale-in (as OpenKruise) never runs while a specified-delete or PreparingDelete pod exists.
  const scalingIn = ctx.pods.some((p) => readLifecycle(p.metadata?.labels).labelsById.get(POL_CLONESET_ID)?.operationType === POL_OPERATION_TYPES.scaleIn);
  const deletes = plan.actions.some((a) => a.kind === 'deletePod' || (a.kind === 'patchPod' && a.lifecycle?.to === LIFECYCLE_STATES.preparingDelete));
  if (d.scaleDownNum > 0 && specifiedOrPreparing.length > 0 && !scalingIn && !deletes) {
    const names = sorted(specifiedOrPreparing.map(nameOf));
    waits.push({ kind: 'scaleIn', pods: names, message: `scale in of ${d.scaleDownNum} pod(s) waits until the pods being deleted are gone: ${list(names)}` });
  }
  return waits;
}

function minReadyWaits(plan: ReconcilePlan, nowMs: number): ReportWait[] {
  const { minReadySeconds } = plan.context;
  if (minReadySeconds <= 0) return [];
  return plan.context.pods.flatMap((p) => {
    const u = unavailability(p, minReadySeconds, nowMs);
    if (u?.availableInMs === undefined) return [];
    const seconds = Math.ceil(u.availableInMs / 1000);
    return [{ kind: 'minReadySeconds' as const, pods: [nameOf(p)], availableInSeconds: seconds, message: `${nameOf(p)}: ${u.reason}; available in ${seconds}s` }];
  });
}

/** Every wait of the pass, most specific first: per pod, then the step's, then the planner's. */
export function reportWaits(input: ReconcileInput, plan: ReconcilePlan): ReportWait[] {
  const acted = podsActedOn(plan);
  const lifecycle = podOpsLifecycleWaits(plan.context.pods, acted);
  const hooks = hookWaits(input, plan.context.pods);
  const waiting = new Set([...lifecycle.waiting, ...hooks.waiting]);
  // Chosen without a budget, not with it, and not waiting for anything else: the budget holds them.
  const budgetless = planWithoutBudget(input);
  const withoutBudget = plan.sync.step === 'none' ? new Set<string>() : podsActedOn(budgetless);
  const heldBack = sorted([...withoutBudget].filter((n) => !acted.has(n) && !waiting.has(n)));
  const taking = sorted([...podsDisrupted(plan)].filter((n) => withoutBudget.has(n)));
  const scale = scaleStepWaits(plan);
  // Pods that only get a label or a state written this pass still wait for their update.
  const settled = new Set([...podsDisrupted(plan), ...waiting, ...heldBack, ...scale.flatMap((w) => w.pods ?? [])]);
  return [
    ...lifecycle.waits,
    ...hooks.waits,
    ...(heldBack.length > 0 ? [budgetWait(plan, heldBack, taking, input.nowMs)] : []),
    ...updateStepWaits(plan, settled, budgetless.sync.step === plan.sync.step),
    ...scale,
    ...minReadyWaits(plan, input.nowMs),
    ...plan.waits.map((w) => ({ kind: 'controller' as const, condition: w.condition, message: w.message })),
    ...plan.errors.map((e) => ({ kind: 'error' as const, condition: e.condition, message: e.message })),
  ];
}
