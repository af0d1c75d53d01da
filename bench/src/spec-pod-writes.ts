// The pod writes the CloneSet's specification adds to a ReplicaSet's create, for a Deployment
// to carry too. A CloneSet pod is created with two readiness gates and the lifecycle state
// PreparingNormal; its controller then writes the gates' conditions True through /status
// (as OpenKruise's CloneSet refreshes a pod) and, once the pod is scheduled, patches the state to
// Normal (its lifecycle state machine). Each such write is
// served by the apiserver and stored by etcd, and reaches every pod watcher: the scheduler, the
// simulated kubelet, the kcm's pod informers. A Deployment whose pods get the same writes from a
// stand-in costs the machine what the CloneSet's pods cost, so the CloneSet's time against it
// says what the CloneSet controller itself adds, apart from what its specification requires.
import { KRUISE_ANNOTATIONS, KRUISE_LABELS, KRUISE_READINESS_GATES } from '@cloneset-suite/api-types';
import type { Pod } from './pods.ts';

/** The name the bench's tables give the Deployment whose pods get these writes. */
export const SPEC_WRITES_LABEL = "Deployment with the CloneSet's pod writes";

export const SPEC_GATES = [KRUISE_READINESS_GATES.inPlaceUpdateReady, KRUISE_READINESS_GATES.kruisePodReady] as const;

export type SpecPodWriteKind = 'gates' | 'state';

/** One write, as the CloneSet controller makes it: a strategic merge patch of the pod or of its /status. */
export interface SpecPodWrite {
  kind: SpecPodWriteKind;
  subresource: 'status' | undefined;
  body: Record<string, unknown>;
}

/** A Deployment pod template that gets the CloneSet's gates and initial lifecycle state. */
export function withSpecPodFields(template: Record<string, unknown>): Record<string, unknown> {
  const metadata = (template.metadata ?? {}) as { labels?: Record<string, string> };
  const spec = (template.spec ?? {}) as { readinessGates?: { conditionType: string }[] };
  return {
    ...template,
    metadata: { ...metadata, labels: { ...metadata.labels, [KRUISE_LABELS.lifecycleState]: 'PreparingNormal' } },
    spec: { ...spec, readinessGates: [...(spec.readinessGates ?? []), ...SPEC_GATES.map((conditionType) => ({ conditionType }))] },
  };
}

const gateTrue = (pod: Pod, type: string): boolean => pod.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/**
 * The writes `pod` still needs, leaving out the kinds already made for it (`done`, which the
 * cache may not show yet): the gates' conditions True once the pod exists, the state Normal
 * once it is bound. A terminating pod gets none.
 */
export function specPodWrites(pod: Pod, done: ReadonlySet<SpecPodWriteKind>, nowIso: string): SpecPodWrite[] {
  if (pod.metadata?.deletionTimestamp !== undefined) return [];
  const writes: SpecPodWrite[] = [];
  if (!done.has('gates') && SPEC_GATES.some((type) => !gateTrue(pod, type))) {
    const conditions = SPEC_GATES.map((type) => ({ type, status: 'True', reason: null, message: null, lastTransitionTime: nowIso }));
    writes.push({ kind: 'gates', subresource: 'status', body: { status: { conditions } } });
  }
  if (!done.has('state') && pod.spec?.nodeName && pod.metadata?.labels?.[KRUISE_LABELS.lifecycleState] === 'PreparingNormal') {
    const metadata = { labels: { [KRUISE_LABELS.lifecycleState]: 'Normal' }, annotations: { [KRUISE_ANNOTATIONS.lifecycleTimestamp]: nowIso } };
    writes.push({ kind: 'state', subresource: undefined, body: { metadata } });
  }
  return writes;
}
