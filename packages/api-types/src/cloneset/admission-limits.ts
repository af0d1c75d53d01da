// Upper bounds that admission puts on one CloneSet, so no request can ask the controller for
// unbounded work.
import { fieldError, type FieldError } from '../field-errors.ts';

/** Instance ids are 5 characters over a 27-letter alphabet (OpenKruise's CloneSet instance ids). */
export const INSTANCE_ID_SPACE = 27 ** 5;

/**
 * The most replicas one CloneSet may ask for. Ids are drawn at random and redrawn on a
 * collision: at 100,000 pods a draw collides with probability 100,000 / 27^5 < 0.7%, so
 * allocation stays one draw per pod in practice; at 8.5 KiB of cache per pod (bench/results.md)
 * such a CloneSet alone holds about 830 MiB of the manager's heap, far above any sane size.
 */
export const MAX_CLONESET_REPLICAS = 100_000;

/** The most names spec.scaleStrategy.podsToDelete may list (each one is looked up at admission). */
export const MAX_PODS_TO_DELETE = 1_000;

/**
 * Refuses replicas above the bound when they are set or raised (an object already above it,
 * admitted before the bound existed, may still be scaled down or edited otherwise).
 */
export function replicasLimitErrors(field: string, replicas: unknown, oldReplicas: unknown): FieldError[] {
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas <= MAX_CLONESET_REPLICAS) return [];
  if (typeof oldReplicas === 'number' && replicas <= oldReplicas) return [];
  return [fieldError.invalid(field, replicas, `must be less than or equal to ${MAX_CLONESET_REPLICAS} (the most replicas one CloneSet may have)`)];
}

/** Refuses a podsToDelete list longer than the bound, before any name is looked up. */
export function podsToDeleteLimitErrors(field: string, names: readonly unknown[] | undefined): FieldError[] {
  if (names === undefined || names.length <= MAX_PODS_TO_DELETE) return [];
  return [fieldError.invalid(field, `${names.length} names`, `must have at most ${MAX_PODS_TO_DELETE} items`)];
}

/**
 * The `clonesets/scale` subresource (an autoscaling/v1 Scale): what the CRD schema checks on the
 * main resource (a non-negative integer) and the bound, since `kubectl scale` bypasses the
 * CloneSet webhooks.
 */
export function validateScaleReplicas(replicas: unknown, oldReplicas: unknown): FieldError[] {
  const field = 'spec.replicas';
  if (replicas === undefined || replicas === null) return [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    return [fieldError.invalid(field, replicas, 'must be a non-negative integer')];
  }
  return replicasLimitErrors(field, replicas, oldReplicas);
}
