// Public face of @cloneset-suite/kube-runtime: re-exports only.
export { KubeClient } from './client/client.ts';
export type { KubeClientOptions } from './client/client.ts';
export {
  ApiError,
  AlreadyExistsError,
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidError,
  NotFoundError,
  TooManyRequestsError,
  UnauthorizedError,
  errorFromStatus,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTooManyRequests,
} from './client/errors.ts';
export type { Status, StatusCause, StatusDetails } from './client/errors.ts';
export { Resources, apiVersionOf, isBuiltIn, resourcePath } from './client/gvr.ts';
export type { GroupVersionResource } from './client/gvr.ts';
export { applyPatch, jsonPatch, jsonPointerEscape, mergePatch, strategicMergePatch, PatchContentTypes } from './client/patch.ts';
export type { Patch } from './client/patch.ts';
export { RawJson } from './client/raw-json.ts';
export { ResourceClient } from './client/resource-client.ts';
export type { DeleteOptions, ListOptions, PatchOptions, WatchOptions, WriteOptions } from './client/resource-client.ts';
export { RestClient } from './client/rest-client.ts';
export { retryOnConflict } from './client/retry.ts';
export { retryAfterMs } from './client/retry-after.ts';
export { writeOutcome } from './client/write-outcome.ts';
export type { WriteOutcome } from './client/write-outcome.ts';
export type { RetryOptions } from './client/retry.ts';
export type { RestClientOptions } from './client/rest-client.ts';
export { KubeConfigTransport, loadKubeConfig } from './client/transport.ts';
export type { HttpMethod, HttpRequest, HttpResponse, QueryParams, Transport } from './client/transport.ts';
export type {
  JsonPatchOperation,
  KubeObject,
  ListMeta,
  ObjectList,
  ObjectMeta,
  OwnerReference,
  Scale,
  WatchEvent,
  WatchEventType,
} from './client/types.ts';
export { Controller, DEFAULT_MAX_CONCURRENT_RECONCILES, DEFAULT_RECONCILE_TIMEOUT_MS } from './controller/controller.ts';
export { ControllerBuilder } from './controller/builder.ts';
export type { ControllerBuilderOptions, ControllerHandles, OwnsOptions, ReconcilerParts } from './controller/builder.ts';
export { done, requeueAfter } from './controller/action.ts';
export type { ReconcileAction } from './controller/action.ts';
export { ControllerStoppedError, LostRaceError, ReconcileError, TerminalError, abortedByStop } from './controller/errors.ts';
export type { FailureEvent } from './controller/errors.ts';
export { errorPolicy, isLostRace } from './controller/error-policy.ts';
export { DEFAULT_CACHE_STALE_AFTER_MS } from './informer/staleness.ts';
export type { StaleCache } from './informer/staleness.ts';
export type { ControllerOptions, MapObjectToKeys, ReconcileContext, Reconciler } from './controller/controller.ts';
export { EventRecorder, DEFAULT_EVENT_SERIES_FLUSH_MS, referenceOf } from './events.ts';
export type { EventRecorderOptions, EventType, EventsV1Event, ObjectReference } from './events.ts';
export { ScaleExpectations, ResourceVersionExpectations, compareResourceVersions } from './expectations.ts';
export type { ExpectationAction, ExpectationsOptions } from './expectations.ts';
export { controllerOwnerKey, controllerRef, enqueueControllerOwner, groupOf, keyOf } from './controller/handlers.ts';
export type { GroupKind } from './controller/handlers.ts';
export { Backoff } from './informer/backoff.ts';
export type { BackoffOptions } from './informer/backoff.ts';
export { InformerFactory } from './informer/factory.ts';
export type { InformerFactoryOptions, InformerScope } from './informer/factory.ts';
export {
  Indexer,
  NamespaceIndex,
  OwnerUIDIndex,
  labelIndexFunc,
  labelIndexName,
  namespaceIndexFunc,
  ownerUIDIndexFunc,
  planIndexLookup,
} from './informer/indexer.ts';
export type { IndexFunc, ListQuery } from './informer/indexer.ts';
export { Reflector } from './informer/reflector.ts';
export type { ReflectorOptions, ReflectorStore, ReplaceSession } from './informer/reflector.ts';
export { SharedIndexInformer } from './informer/shared-informer.ts';
export type { InformerOptions } from './informer/shared-informer.ts';
export { keepIdentityAndLabels, stripManagedFields } from './informer/transform.ts';
export type { ObjectTransform } from './informer/transform.ts';
export { StringPool } from './informer/string-pool.ts';
export type { SharedString, StringPoolOptions } from './informer/string-pool.ts';
export { SubtreePool } from './informer/subtree-pool.ts';
export type { SharedSubtree, SubtreePoolOptions } from './informer/subtree-pool.ts';
export type { CachePools } from './informer/share-equal-values.ts';
export type { EventSource, ResourceEventHandler } from './informer/types.ts';
export { objectKey, namespacedKey, splitKey } from './keys.ts';
export type { ObjectMetaLike } from './keys.ts';
export { LeaderElector } from './leader-election.ts';
export type { LeaderElectionOptions, Lease } from './leader-election.ts';
export { createLogger, silentLogger } from './logger.ts';
export type { Logger, LoggerOptions, LogLevel } from './logger.ts';
export { LEADER_ELECTION_CLIENT_LIMITS, Manager } from './manager.ts';
export type { LeaderElectionConfig, ManagerOptions, StopReason } from './manager.ts';
export { whenAborted } from './runnable.ts';
export type { Runnable } from './runnable.ts';
export { createMetrics, initControllerSeries, initQueueSeries, RECONCILE_RESULTS } from './metrics.ts';
export { matchesLabels, parseLabelSelector } from './selectors.ts';
export type { Operator, Requirement } from './selectors.ts';
export type { RuntimeMetrics } from './metrics.ts';
export {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './queue/rate-limiter.ts';
export type { RateLimiter } from './queue/rate-limiter.ts';
export { WorkQueue } from './queue/work-queue.ts';
export type { WorkQueueOptions } from './queue/work-queue.ts';
export { FakeClock, realClock, sleep } from './util/clock.ts';
export type { Clock, TimerHandle } from './util/clock.ts';
export { deepFreeze } from './util/deep-readonly.ts';
export type { DeepReadonly } from './util/deep-readonly.ts';
export { microTime } from './util/micro-time.ts';
export { TokenBucket } from './util/token-bucket.ts';
