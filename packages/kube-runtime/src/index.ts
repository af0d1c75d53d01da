// Public face of @cloneset-suite/kube-runtime: what other packages use, re-exported.

// The client: typed errors, patches, what a failed write means.
export { KubeClient } from './client/client.ts';
export { ApiError, AlreadyExistsError, ConflictError, ForbiddenError, NotFoundError, isAlreadyExists, isConflict, isGone, isInvalid, isNotFound } from './client/errors.ts';
export { Resources, type GroupVersionResource } from './client/gvr.ts';
export { jsonPatch, jsonPointerEscape, mergePatch, strategicMergePatch, type Patch } from './client/patch.ts';
export { RawJson } from './client/raw-json.ts';
export { ResourceClient } from './client/resource-client.ts';
export { RestClient } from './client/rest-client.ts';
export { retryOnConflict } from './client/retry.ts';
export { retryAfterMs } from './client/retry-after.ts';
export { writeOutcome } from './client/write-outcome.ts';
export { KubeConfigTransport, loadKubeConfig, type HttpRequest, type HttpResponse, type Transport } from './client/transport.ts';
export type { JsonPatchOperation, KubeObject, ObjectMeta } from './client/types.ts';

// Controllers: declared with manager.controller(name) (the builder); what a reconcile returns and throws.
export { Controller, DEFAULT_MAX_CONCURRENT_RECONCILES, type ReconcileContext } from './controller/controller.ts';
export type { ObjectReconciler, ReconcilerParts } from './controller/builder.ts';
export { done, requeueAfter, type ReconcileAction } from './controller/action.ts';
export { ControllerStoppedError, LostRaceError, ReconcileError, abortedByStop } from './controller/errors.ts';
export { controllerOwnerKey, keyOf } from './controller/handlers.ts';
export { ScaleExpectations, ResourceVersionExpectations } from './expectations.ts';
export { EventRecorder, DEFAULT_EVENT_SERIES_FLUSH_MS } from './events.ts';

// Caches: the read side controllers see (CachedSource), the informer that writes it, their factory.
export type { CachedSource } from './informer/store.ts';
export type { EventSource, ResourceEventHandler } from './informer/types.ts';
export { SharedIndexInformer } from './informer/shared-informer.ts';
export { InformerFactory, type InformerScope } from './informer/factory.ts';
export { NamespaceIndex, OwnerUIDIndex } from './informer/indexer.ts';
export { keepIdentityAndLabels, stripManagedFields } from './informer/transform.ts';
export { namespacedKey, splitKey } from './keys.ts';
export { matchesLabels, parseLabelSelector } from './selectors.ts';

// A shard of a ControllerRing (timebertt/kubernetes-controller-sharding's label protocol).
export { RING_LEASE_LABEL, drainAcknowledgement, drainLabel, isDraining, leftViewReason, ringMembershipError, shardLabel, shardSelector, withShardLabelOf, type RingMembership } from './ring/ring-labels.ts';
export { shardLease } from './ring/shard-lease.ts';

// The manager and what runs beside controllers.
export { LEADER_ELECTION_CLIENT_LIMITS, Manager, type ManagerOptions } from './manager.ts';
export { whenAborted, type Runnable } from './runnable.ts';
export { runInTurns, yieldToEventLoop } from './util/yield.ts';
export { createMetrics } from './metrics.ts';
export { createLogger, silentLogger, type Logger } from './logger.ts';
export { FakeClock, realClock, type Clock, type TimerHandle } from './util/clock.ts';
export { deepFreeze, type DeepReadonly } from './util/deep-readonly.ts';
