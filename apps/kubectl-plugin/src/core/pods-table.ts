// `pods clone/NAME`: one row per pod of the CloneSet with what a user asks when a rollout
// stalls: which revision it is at, its CloneSet lifecycle state, its PodOpsLifecycle phase and
// operation, the PodTransitionRule holding it and why, what the controller's next pass waits for
// on it (the kinds of the planner's waits naming it; `plan` says them in words), since when, and
// on which node.
import { KRUISE_ANNOTATIONS, KRUISE_LABELS, POL_PHASE_LABEL, nanoTimestampToDate, ptrDetailsOf, type CloneSet } from '@cloneset-suite/api-types';
import { lacksOperationType, phaseOf, readLifecycle, typeOf } from '@cloneset-suite/podopslifecycle';
import type { V1Pod } from '@kubernetes/client-node';
import { humanDuration } from './table.ts';

export interface PodRow {
  name: string;
  instanceId: string;
  /** The pod's revision hash and whether it is the `update`, the `current` or an `old` revision. */
  revision: string;
  state: string;
  ready: string;
  /** PodOpsLifecycle phase per lifecycle id, e.g. `PreCheck`; between operations the phase label. */
  opsPhase: string;
  /** `<id>/<operation type>`. */
  operation: string;
  /** `<PodTransitionRule>/<rule>: <reason>` for every rule rejecting the pod. */
  heldBy: string;
  since: string;
  node: string;
  /** The kinds of the planner's waits naming the pod (`maxUnavailable`, `podTransitionRule`, ...). */
  waitingFor: string;
}

/** A planner wait, as far as the table needs it: its kind and the pods it names. */
export interface PodWait {
  kind: string;
  pods?: readonly string[];
}

interface LifecyclePhase {
  id: string;
  /**
   * In the lifecycle controller's words (its Events and the phase label): PreCheck ... Completing,
   * or NoOperationType for an id that cannot pass PreCheck until its operation-type is written.
   */
  phase: string;
  operationType: string | undefined;
  /** The id's latest label timestamp: when it entered its current phase. */
  since: Date | undefined;
}

/** One phase per lifecycle id, ordered by id, read the way the PodOpsLifecycle controller reads them. */
export function lifecyclePhases(labels: Readonly<Record<string, string>>): LifecyclePhase[] {
  const view = readLifecycle(labels);
  return view.ids.map((id) => {
    const idLabels = view.labelsById.get(id) ?? {};
    const stamps = Object.values(idLabels)
      .map((v) => nanoTimestampToDate(v))
      .filter((d): d is Date => d !== undefined);
    const since = stamps.length === 0 ? undefined : new Date(Math.max(...stamps.map((d) => d.getTime())));
    const phase = lacksOperationType(idLabels) ? 'NoOperationType' : (phaseOf(idLabels) ?? 'PreCheck');
    return { id, phase, operationType: typeOf(idLabels), since };
  });
}

/** Rules rejecting the pod, from the `detail.podtransitionrule.kusionstack.io/<ptr>` annotations. */
export function transitionRuleHolds(annotations: Readonly<Record<string, string>>): string[] {
  const holds: string[] = [];
  for (const d of ptrDetailsOf(annotations)) {
    if (!d.readable) {
      holds.push(`${d.transitionRule}: unreadable detail`);
      continue;
    }
    if (d.passed !== false) continue;
    if (d.rejections.length === 0) holds.push(`${d.transitionRule}: rejected`);
    for (const r of d.rejections) holds.push(`${d.transitionRule}/${r.ruleName ?? '?'}: ${r.reason ?? ''}`.trimEnd());
  }
  return holds.sort();
}

function revisionOf(pod: V1Pod, cs: CloneSet): string {
  const hash = pod.metadata?.labels?.[KRUISE_LABELS.controllerRevisionHash];
  if (!hash) return '-';
  // The label is the revision name, or only its hash under CloneSetShortHash.
  const is = (revision: string | undefined): boolean => revision !== undefined && (revision === hash || revision.endsWith(`-${hash}`));
  const which = is(cs.status?.updateRevision) ? 'update' : is(cs.status?.currentRevision) ? 'current' : 'old';
  return `${hash} (${which})`;
}

export function podRow(pod: V1Pod, cs: CloneSet, now: Date, waits: readonly PodWait[] = []): PodRow {
  const labels = pod.metadata?.labels ?? {};
  const annotations = pod.metadata?.annotations ?? {};
  const phases = lifecyclePhases(labels);
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const stateSince = annotations[KRUISE_ANNOTATIONS.lifecycleTimestamp];
  const since = phases.find((p) => p.since)?.since ?? (stateSince ? new Date(stateSince) : undefined) ?? pod.metadata?.creationTimestamp;
  const holds = transitionRuleHolds(annotations);
  return {
    name: pod.metadata?.name ?? '',
    instanceId: labels[KRUISE_LABELS.cloneSetInstanceId] ?? '-',
    revision: revisionOf(pod, cs),
    state: labels[KRUISE_LABELS.lifecycleState] ?? '-',
    ready: pod.metadata?.deletionTimestamp ? 'Terminating' : ready === 'True' ? 'True' : 'False',
    // Between operations: the controller's phase label (ServiceAvailable / Unavailable).
    opsPhase: phases.length === 0 ? (labels[POL_PHASE_LABEL] ?? '-') : phases.map((p) => p.phase).join(','),
    operation: phases.length === 0 ? '-' : phases.map((p) => `${p.id}/${p.operationType ?? '-'}`).join(','),
    heldBy: holds.length === 0 ? '-' : holds.join('; '),
    since: since && !Number.isNaN(new Date(since).getTime()) ? humanDuration(now.getTime() - new Date(since).getTime()) : '-',
    node: pod.spec?.nodeName ?? '<none>',
    waitingFor: [...new Set(waits.filter((w) => w.pods?.includes(pod.metadata?.name ?? '')).map((w) => w.kind))].join(',') || '-',
  };
}

const HEADERS = ['NAME', 'INSTANCE-ID', 'REVISION', 'STATE', 'READY', 'OPS-PHASE', 'OPERATION', 'HELD-BY', 'WAITING-FOR', 'SINCE', 'NODE'];

/** Header plus one row per pod, ordered by name; `waits`: the planner's waits of the next pass. */
export function podsTable(pods: readonly V1Pod[], cs: CloneSet, now: Date, waits: readonly PodWait[] = []): string[][] {
  const rows = pods.map((p) => podRow(p, cs, now, waits)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [HEADERS, ...rows.map((r) => [r.name, r.instanceId, r.revision, r.state, r.ready, r.opsPhase, r.operation, r.heldBy, r.waitingFor, r.since, r.node])];
}
