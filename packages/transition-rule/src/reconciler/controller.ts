// The PodTransitionRule controller's imperative shell (spec §2.5): gather the rule and the pods of
// its namespace from the caches, run planRound, execute the plan (finalizer, webhook actions,
// status, pod annotations) and requeue as the plan says. It holds no policy.
import { randomUUID } from 'node:crypto';
import { compileLabelSelector, type LabelSelector, type TransitionRule } from '@cloneset-suite/api-types';
import {
  ResourceVersionExpectations,
  namespacedKey,
  whenAborted,
  type Controller,
  type DeepReadonly,
  type KubeObject,
  type Manager,
  type ReconcileContext,
  type ReconcileResult,
} from '@cloneset-suite/kube-runtime';
import { planRound } from '../core/round.ts';
import { RULE_ERROR_REASON } from '../core/webhook-rule.ts';
import type { RuleObject } from '../core/types.ts';
import { ruleKind } from '../core/rules.ts';
import { cloneSetResource, podResource, podTransitionRuleResource, type CloneSetObject, type PodTransitionRuleObject } from './resources.ts';
import { WebhookClient, type WebhookCaller, type WebhookClientOptions } from '../http/webhook-client.ts';
import { WebhookRuntimeStore } from './webhook-runtime-store.ts';
import { specEvents } from './spec-events.ts';
import { addFinalizer, patchAnnotations, removeFinalizer } from './writes.ts';
import { ResultWriter } from './result-writer.ts';
import { ownersFromCloneSets, replicaChanges } from './owners.ts';

export const TRANSITION_RULE_CONTROLLER_NAME = 'podtransitionrule';

export interface TransitionRuleControllerOptions {
  /** Watch one namespace; all when undefined. */
  namespace?: string;
  maxConcurrentReconciles?: number;
  /** Identity for Events' reportingInstance. */
  instance?: string;
  /** Timeout, response cap, concurrency and allow-list of webhook calls. */
  webhook?: WebhookClientOptions;
  /** Replaces the HTTP client (the manager wraps it with metrics); the controller closes it when it stops. */
  caller?: WebhookCaller;
  newTraceId?: () => string;
}

/** Safety requeue while the cache has not caught up with our own status write. */
const STALE_CACHE_REQUEUE_MS = 500;

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export interface TransitionRuleController {
  controller: Controller;
  /** Stops poll timers and cancels calls in flight (the manager stops the controller itself). */
  stop: () => void;
}

export function createTransitionRuleController(manager: Manager, options: TransitionRuleControllerOptions = {}): TransitionRuleController {
  const scope = options.namespace ? { namespace: options.namespace } : {};
  const ptrs = manager.informers.informerFor<PodTransitionRuleObject>(podTransitionRuleResource, scope);
  const pods = manager.informers.informerFor<KubeObject>(podResource, scope);
  const cloneSets = manager.informers.informerFor<CloneSetObject>(cloneSetResource, scope);
  const owners = ownersFromCloneSets(cloneSets);
  const recorder = manager.eventRecorder('podtransitionrule-controller', options.instance ?? 'cloneset-suite');
  const newTraceId = options.newTraceId ?? randomUUID;
  const caller = options.caller ?? new WebhookClient(options.webhook);
  const statusVersions = new ResourceVersionExpectations({ clock: manager.clock });
  const results = new ResultWriter({ client: manager.client, recorder, clock: manager.clock });
  const controllerRef: { current?: Controller } = {};
  const store = new WebhookRuntimeStore({
    caller,
    clock: manager.clock,
    logger: manager.logger.child({ controller: TRANSITION_RULE_CONTROLLER_NAME }),
    changed: (key) => controllerRef.current?.enqueue(key),
  });
  ptrs.addEventHandler({
    onAdd: (p) => statusVersions.observe(keyOf(p), p.metadata?.resourceVersion),
    onUpdate: (_o, p) => statusVersions.observe(keyOf(p), p.metadata?.resourceVersion),
    onDelete: (p) => statusVersions.delete(keyOf(p)),
  });

  const reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> => {
    const ptr = ptrs.getByKey(key);
    if (!ptr) {
      store.forget(key);
      results.forget(key);
      statusVersions.delete(key);
      return;
    }
    if (!statusVersions.satisfied(key, ptr.metadata?.resourceVersion)) {
      ctx.logger.debug('waiting for the cache to observe our status write');
      return { requeueAfter: STALE_CACHE_REQUEUE_MS };
    }
    const namespace = ptr.metadata?.namespace ?? '';
    const plan = planRound({
      // Cached objects are frozen JSON; the engine only reads them.
      ptr: ptr as unknown as RuleObject,
      pods: pods.list({ namespace }),
      runtime: (rule) => store.runtime(key, rule),
      owners,
      nowMs: manager.clock.now(),
      newTraceId,
    });
    if (plan.kind === 'cleanup') {
      ctx.logger.debug({ pods: plan.annotations.length }, 'being deleted: removing detail annotations, then the finalizer');
      await patchAnnotations(manager.client, namespace, plan.annotations, ctx.signal);
      if (plan.removeFinalizer) await removeFinalizer(manager.client, ptr, ctx.signal);
      store.forget(key);
      return;
    }
    if (plan.addFinalizer) await addFinalizer(manager.client, ptr, ctx.signal);
    store.retainRules(key, new Set((ptr.spec.rules ?? []).filter((r) => ruleKind(r as TransitionRule) === 'webhook').map((r) => r.name)));
    // Answers are forgotten only once the status holding their verdict is saved.
    store.apply(key, plan.actions.filter((a) => a.type !== 'clearPost'));
    for (const a of plan.actions) if (a.type === 'event') recorder.event(ptr, a.eventType, a.reason, 'EvaluateRule', a.message);
    let saved = true;
    if (plan.writeStatus) {
      const details = plan.status.details ?? [];
      ctx.logger.debug(
        { targets: plan.status.targets?.length, passed: details.filter((d) => d.passed).map((d) => d.name), waiting: details.filter((d) => !d.passed).map((d) => d.name) },
        'writing status: decisions changed',
      );
      const written = await results.status(ptr, key, plan.status, ctx.logger, ctx.signal);
      saved = written.saved;
      if (saved) statusVersions.expect(key, written.resourceVersion);
    }
    // Not saved (refused): keep the answers, so the next round plans the same status and sends
    // nothing, and write no annotation ahead of a status the apiserver does not hold.
    if (saved) {
      store.apply(key, plan.actions.filter((a) => a.type === 'clearPost'));
      await results.annotations(ptr, key, namespace, plan.annotations, ctx.logger, ctx.signal);
    }
    if (plan.errors.length > 0) {
      recorder.event(ptr, 'Warning', RULE_ERROR_REASON, 'EvaluateRule', plan.errors.join('; '));
      throw new Error(plan.errors.join('; '));
    }
    if (plan.requeueAfterMs !== undefined) return { requeueAfter: Math.max(1, plan.requeueAfterMs) };
    return undefined;
  };

  const controller = manager.addController({
    name: TRANSITION_RULE_CONTROLLER_NAME,
    reconcile,
    ...(options.maxConcurrentReconciles !== undefined ? { maxConcurrentReconciles: options.maxConcurrentReconciles } : {}),
  });
  controllerRef.current = controller;

  // A pod event reaches every rule of its namespace that selects it or lists it as a target.
  const podKeys = (pod: DeepReadonly<KubeObject>): string[] => {
    const ns = pod.metadata?.namespace;
    const name = pod.metadata?.name ?? '';
    return ptrs
      .list({ ...(ns ? { namespace: ns } : {}) })
      .filter((p) => (p.status?.targets ?? []).includes(name) || selects(p, pod))
      .map((p) => keyOf(p));
  };
  // A CloneSet's replicas change the missing replicas availablePolicy rules of its namespace count.
  const availablePolicyKeys = (cs: DeepReadonly<CloneSetObject>): string[] =>
    ptrs
      .list({ namespace: cs.metadata?.namespace ?? '' })
      .filter((p) => (p.spec.rules ?? []).some((r) => r.availablePolicy))
      .map((p) => keyOf(p));
  controller.watches(specEvents(ptrs), (p) => keyOf(p)).watches(pods, podKeys).watches(replicaChanges(cloneSets), availablePolicyKeys);
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    store.stop();
    caller.close().catch((err: unknown) => manager.logger.info({ controller: TRANSITION_RULE_CONTROLLER_NAME, err: String(err) }, 'closing the webhook client failed'));
  };
  // Poll timers and calls in flight end with the controller (shutdown or lost lease).
  manager.add({
    name: `${TRANSITION_RULE_CONTROLLER_NAME}-webhook-calls`,
    needLeaderElection: true,
    start: async (signal) => {
      await whenAborted(signal);
      stop();
    },
  });
  return { controller, stop };
}

function keyOf(obj: DeepReadonly<KubeObject>): string {
  return namespacedKey(obj.metadata?.namespace, obj.metadata?.name ?? '');
}

function selects(ptr: Ptr, pod: DeepReadonly<KubeObject>): boolean {
  try {
    return compileLabelSelector(ptr.spec.selector as LabelSelector)(pod.metadata?.labels);
  } catch {
    return false;
  }
}
