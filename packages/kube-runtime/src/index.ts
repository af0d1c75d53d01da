// Public face of @cloneset-suite/kube-runtime: re-exports only.
export { Controller, TerminalError } from './controller.ts';
export type { ControllerOptions, MapObjectToKeys, ReconcileContext, ReconcileResult, Reconciler } from './controller.ts';
export { ScaleExpectations, ResourceVersionExpectations, compareResourceVersions } from './expectations.ts';
export type { ExpectationAction, ExpectationsOptions } from './expectations.ts';
export type { EventSource, ResourceEventHandler } from './informer/types.ts';
export { objectKey, namespacedKey, splitKey } from './keys.ts';
export type { ObjectMetaLike } from './keys.ts';
export { createLogger, silentLogger } from './logger.ts';
export type { Logger, LoggerOptions, LogLevel } from './logger.ts';
export { createMetrics } from './metrics.ts';
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
export { TokenBucket } from './util/token-bucket.ts';
