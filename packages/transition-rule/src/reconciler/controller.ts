// The PodTransitionRule controller's imperative shell: from the cached rule the builder hands it
// (once the cache shows our own status write), gather the pods of its namespace, run planRound, execute the plan (finalizer, webhook actions,
// status, pod annotations) and requeue as the plan says. It holds no policy.
import { randomUUID } from 'node:crypto';
import { compileLabelSelector, type LabelSelector, type TransitionRule } from '@cloneset-suite/api-types';
import {
  ReconcileError,
  done,
  keyOf,
  requeueAfter,
  type Controller,
  type DeepReadonly,
  type EventRecorder,
  type KubeClient,
  type KubeObject,
  type Manager,
  type ReconcileAction,
  type ReconcileContext,
  type ReconcilerParts,
  type ResourceVersionExpectations,
  type CachedSource,
} from '@cloneset-suite/kube-runtime';
import { planRound } from '../core/round.ts';
import { RULE_ERROR_REASON } from '../core/webhook-rule.ts';
import type { OwnerLookup, RuleObject } from '../core/types.ts';
import { ruleKind } from '../core/rules.ts';
import { cloneSetResource, podResource, podTransitionRuleResource, type CloneSetObject, type PodTransitionRuleObject } from './resources.ts';
import { WebhookClient, type WebhookCaller, type WebhookClientOptions } from '../http/webhook-client.ts';
import { WebhookRuntimeStore } from './webhook-runtime-store.ts';
import { specChanged } from './spec-changed.ts';
import { addFinalizer, patchAnnotations, removeFinalizer } from './writes.ts';
import { ResultWriter } from './result-writer.ts';
import { ownersFromCloneSets, replicasChanged } from './owners.ts';

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
  /** The apiserver client its writes use (one with its own rate limit); the manager's shared one by default. */
  client?: KubeClient;
  newTraceId?: () => string;
}

type Ptr = DeepReadonly<PodTransitionRuleObject>;

export function createTransitionRuleController(manager: Manager, options: TransitionRuleControllerOptions = {}): Controller {
  const scope = { namespace: options.namespace };
  const ptrs = manager.informers.informerFor<PodTransitionRuleObject>(podTransitionRuleResource, scope);
  // On a shard of a ControllerRing a rule is this shard's by its own shard label, but the pods it
  // selects and their CloneSets are spread over every shard: those caches hold all of them.
  const pods = manager.informers.informerFor<KubeObject>(podResource, { ...scope, acrossShards: true });
  const cloneSets = manager.informers.informerFor<CloneSetObject>(cloneSetResource, { ...scope, acrossShards: true });
  // A pod event reaches every rule of its namespace that selects it or lists it as a target.
  const podKeys = (pod: DeepReadonly<KubeObject>): string[] => {
    const name = pod.metadata?.name ?? '';
    return ptrs
      .list({ namespace: pod.metadata?.namespace })
      .filter((p) => (p.status?.targets ?? []).includes(name) || selects(p, pod))
      .map(keyOf);
  };
  // A CloneSet's replicas change the missing replicas availablePolicy rules of its namespace count.
  const availablePolicyKeys = (cs: DeepReadonly<CloneSetObject>): string[] =>
    ptrs
      .list({ namespace: cs.metadata?.namespace ?? '' })
      .filter((p) => (p.spec.rules ?? []).some((r) => r.availablePolicy))
      .map(keyOf);
  return manager
    .controller(TRANSITION_RULE_CONTROLLER_NAME, { maxConcurrentReconciles: options.maxConcurrentReconciles })
    .for(ptrs, { changed: specChanged })
    .watches(pods, podKeys)
    .watches(cloneSets, availablePolicyKeys, { changed: replicasChanged })
    .tracksOwnWrites(ptrs)
    .recordsEvents('podtransitionrule-controller', options.instance ?? 'cloneset-suite')
    .complete((c) =>
      ruleReconciler({
        manager,
        client: options.client ?? manager.client,
        pods,
        owners: ownersFromCloneSets(cloneSets),
        statusVersions: c.ownWrites(ptrs),
        recorder: c.recorder,
        store: new WebhookRuntimeStore({ caller: options.caller ?? new WebhookClient(options.webhook), clock: manager.clock, logger: c.logger, changed: c.enqueue }),
        newTraceId: options.newTraceId ?? randomUUID,
      }),
    );
}

interface RuleReconcilerDeps {
  manager: Manager;
  client: KubeClient;
  pods: CachedSource<KubeObject>;
  owners: OwnerLookup;
  statusVersions: ResourceVersionExpectations;
  recorder: EventRecorder;
  store: WebhookRuntimeStore;
  newTraceId: () => string;
}

function ruleReconciler({ manager, client, pods, owners, statusVersions, recorder, store, newTraceId }: RuleReconcilerDeps): ReconcilerParts<PodTransitionRuleObject> {
  const results = new ResultWriter({ client, recorder, clock: manager.clock });

  const reconcile = async (ptr: Ptr, ctx: ReconcileContext): Promise<ReconcileAction> => {
    const key = ctx.key;
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
      await patchAnnotations(client, namespace, plan.annotations, ctx.signal);
      if (plan.removeFinalizer) await removeFinalizer(client, ptr, ctx.signal);
      store.forget(key);
      return done();
    }
    if (plan.addFinalizer) await addFinalizer(client, ptr, ctx.signal);
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
    if (plan.errors.length > 0) throw new ReconcileError(plan.errors.join('; '), { event: { regarding: ptr, reason: RULE_ERROR_REASON, action: 'EvaluateRule' } });
    return requeueAfter(plan.requeueAfterMs === undefined ? undefined : Math.max(1, plan.requeueAfterMs));
  };

  return {
    reconcile,
    forget: (key) => {
      store.forget(key);
      results.forget(key);
    },
    // Poll timers, calls in flight and the caller's connections end with the controller (shutdown or lost lease).
    stop: () => store.stop(),
  };
}

function selects(ptr: Ptr, pod: DeepReadonly<KubeObject>): boolean {
  try {
    return compileLabelSelector(ptr.spec.selector as LabelSelector)(pod.metadata?.labels);
  } catch {
    return false;
  }
}
