// The lifecycle controller's imperative shell (Kuperator's PodOpsLifecycle controller): from the cached controlled pod
// the builder hands it (once the cache shows our last write), read the Services its expected
// finalizers name from the shared caches, ask planLifecycle, execute its
// one write, record its Events. Holds no policy.
import { POL_ANNOTATIONS, POL_SERVICE_READY_GATE, isKusionControlled, nanoTimestamp } from '@cloneset-suite/api-types';
import {
  NamespaceIndex,
  ReconcileError,
  Resources,
  done,
  jsonPatch,
  keyOf,
  namespacedKey,
  type Controller,
  type DeepReadonly,
  type KubeObject,
  type Manager,
  type ReconcileAction,
  type ReconcileContext,
  type ReconcilerParts,
  type ResourceVersionExpectations,
  type CachedSource,
  type EventRecorder,
  jsonPointerEscape,
} from '@cloneset-suite/kube-runtime';
import { labelPatchOps } from '../core/label-patch.ts';
import { planLifecycle, serviceReadyEvent, serviceReadyPatchOps, type LifecycleWrite } from '../core/lifecycle-plan.ts';
import type { PlannedEvent } from '../core/planned-event.ts';
import { observePod, phaseChangeEvents, type PodObservation } from '../core/phase-events.ts';
import type { ServiceSelectorLookup } from '../core/dirty-finalizers.ts';
import type { Pod } from '../core/pod-state.ts';
import { passAllStageGate, type StageGate } from '../core/stage-gate.ts';

export const PODOPSLIFECYCLE_CONTROLLER_NAME = 'podopslifecycle';

export interface PodOpsLifecycleControllerOptions {
  /** Watch one namespace; all when undefined. */
  namespace?: string;
  maxConcurrentReconciles?: number;
  /** "May this pod leave PreCheck / PostCheck?"; passAllStageGate when omitted. */
  stageGate?: StageGate;
  /** Identity for Events' reportingInstance. */
  instance?: string;
}

type PodObject = Pod & KubeObject;
type ServiceObject = KubeObject & { spec?: { selector?: Record<string, string> } };

/**
 * Controlled pods, and pods that still carry the service-ready gate after their control label
 * went (the controller sets the condition True for them: nothing else ever would).
 */
function concerned(pod: DeepReadonly<KubeObject>): boolean {
  if (isKusionControlled(pod.metadata?.labels)) return true;
  const gates = (pod as DeepReadonly<PodObject>).spec?.readinessGates ?? [];
  return gates.some((g) => g.conditionType === POL_SERVICE_READY_GATE);
}

/** The keys of controlled pods in the Service's namespace whose available-conditions name it. */
function podsNamingService(pods: readonly DeepReadonly<KubeObject>[], svc: DeepReadonly<ServiceObject>): string[] {
  const ref = `"Service/${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}"`;
  return pods.filter((p) => isKusionControlled(p.metadata?.labels) && (p.metadata?.annotations?.[POL_ANNOTATIONS.availableConditions] ?? '').includes(ref)).map(keyOf);
}

export function createPodOpsLifecycleController(manager: Manager, options: PodOpsLifecycleControllerOptions = {}): Controller {
  const scope = { namespace: options.namespace };
  const pods = manager.informers.informerFor<KubeObject>(Resources.pods, scope);
  // Employers of expected finalizers: a Service change can make an entry "dirty" (dirty-finalizers.ts).
  const services = manager.informers.informerFor<ServiceObject>(Resources.services, scope);
  const gate = options.stageGate ?? passAllStageGate;
  return manager
    .controller(PODOPSLIFECYCLE_CONTROLLER_NAME, { maxConcurrentReconciles: options.maxConcurrentReconciles })
    .for(pods, { when: concerned })
    .watches(services, (svc) => podsNamingService(pods.byIndex(NamespaceIndex, svc.metadata?.namespace ?? ''), svc))
    .triggeredBy((enqueue) => gate.onDecisionChange((namespace, name) => enqueue(namespacedKey(namespace, name))))
    .tracksOwnWrites(pods)
    .recordsEvents('podopslifecycle-controller', options.instance ?? 'cloneset-suite')
    .complete((c) => lifecycleReconciler({ manager, services, gate, versions: c.ownWrites(pods), recorder: c.recorder }));
}

interface LifecycleReconcilerDeps {
  manager: Manager;
  services: CachedSource<ServiceObject>;
  gate: StageGate;
  versions: ResourceVersionExpectations;
  recorder: EventRecorder;
}

function lifecycleReconciler({ manager, services, gate, versions, recorder }: LifecycleReconcilerDeps): ReconcilerParts {
  const serviceSelector: ServiceSelectorLookup = (namespace, name) => {
    const svc = services.getByKey(namespacedKey(namespace, name));
    return svc ? (svc.spec?.selector ?? null) : undefined;
  };
  const client = manager.client.resource<PodObject>(Resources.pods);
  // The last phases seen per pod, for the phase-change Events.
  const observed = new Map<string, PodObservation>();

  const record = (pod: Pod, events: readonly PlannedEvent[]): void => {
    for (const e of events) recorder.event(pod as KubeObject, e.type, e.reason, e.action, e.note);
  };

  const execute = async (pod: PodObject, write: LifecycleWrite, signal: AbortSignal): Promise<PodObject> => {
    const { namespace, name = '', resourceVersion } = pod.metadata ?? {};
    const guard = { resourceVersion };
    switch (write.kind) {
      case 'patchLabels':
        return client.patch(namespace, name, jsonPatch(labelPatchOps(pod.metadata?.labels, write.changes), guard), { signal });
      case 'setServiceReady': {
        const ops = serviceReadyPatchOps(pod, write.status, new Date(manager.clock.now()).toISOString());
        const updated = await client.patchStatus(namespace, name, jsonPatch(ops, guard), { signal });
        record(pod, [serviceReadyEvent(write)]);
        return updated;
      }
      case 'setAvailableConditions': {
        const path = `/metadata/annotations/${jsonPointerEscape(POL_ANNOTATIONS.availableConditions)}`;
        return client.patch(namespace, name, jsonPatch([{ op: 'replace', path, value: write.value }], guard), { signal });
      }
      case 'touch':
        return client.patch(namespace, name, jsonPatch([], guard), { signal });
    }
  };

  // The builder reconciles only pods it is concerned with (for(.., { when: concerned })) and forgets the others.
  const reconcile = async (cached: DeepReadonly<KubeObject>, ctx: ReconcileContext): Promise<ReconcileAction> => {
    const key = ctx.key;
    // The planners read client-node's shapes; the cache holds the frozen JSON the apiserver sent.
    const pod = cached as unknown as PodObject;
    if (isKusionControlled(pod.metadata?.labels)) {
      const observation = observePod(pod);
      record(pod, phaseChangeEvents(observed.get(key), observation));
      observed.set(key, observation);
    } else observed.delete(key);

    const plan = planLifecycle({ pod, gate: (stage) => gate.check(pod, stage), now: nanoTimestamp(manager.clock.now()), serviceSelector });
    record(pod, plan.events);
    ctx.logger.debug({ write: plan.write?.kind, why: plan.why }, 'planned');
    if (!plan.write) return done();
    try {
      const updated = await execute(pod, plan.write, ctx.signal);
      versions.expect(key, updated.metadata?.resourceVersion);
      return done();
    } catch (err) {
      // The next attempt (with backoff) re-plans from a fresher cache; a lost race records nothing.
      throw new ReconcileError(`${plan.why}: ${(err as Error).message}`, { causes: [err], event: { regarding: pod, reason: 'LifecycleWriteFailed', action: 'Update' } });
    }
  };

  return { reconcile, forget: (key) => observed.delete(key) };
}
