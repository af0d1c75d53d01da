// The label protocol of a ControllerRing (timebertt/kubernetes-controller-sharding, its
// docs/implement-sharding.md): which shard owns an object, which objects a shard asks it to let
// go, and which Leases announce the ring's shards. Pure: names in, names and decisions out.
import type { DeepReadonly } from '../util/deep-readonly.ts';
import type { JsonPatchOperation, KubeObject } from '../client/types.ts';
import { jsonPatch, jsonPointerEscape, type Patch } from '../client/patch.ts';

/** Labels a shard's Lease with its ring. */
export const RING_LEASE_LABEL = 'alpha.sharding.timebertt.dev/controllerring';
const SHARD_LABEL_PREFIX = 'shard.alpha.sharding.timebertt.dev/';
const DRAIN_LABEL_PREFIX = 'drain.alpha.sharding.timebertt.dev/';

/** The ring's name becomes the name part of a label key: a DNS label of at most 63 characters. */
const RING_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_RING_NAME = 63;
/** The shard's name becomes a Lease name and a label value: at most 63 characters. */
const SHARD_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const MAX_SHARD_NAME = 63;

export interface RingMembership {
  /** The ControllerRing's name. */
  readonly ring: string;
  /** This shard's name: its Lease's name and holderIdentity, and the value of the shard label. */
  readonly shard: string;
}

/** Why a ring or shard name cannot be used, naming the flag; undefined when both are valid. */
export function ringMembershipError(m: RingMembership): string | undefined {
  if (m.ring.length > MAX_RING_NAME || !RING_NAME.test(m.ring)) {
    return `--controller-ring: ${JSON.stringify(m.ring)} is not a DNS label of at most ${MAX_RING_NAME} characters (it is part of the shard label's key)`;
  }
  if (m.shard.length > MAX_SHARD_NAME || !SHARD_NAME.test(m.shard)) {
    return `--shard-name: ${JSON.stringify(m.shard)} is not a lowercase name of at most ${MAX_SHARD_NAME} characters (it is the Lease's name and a label value)`;
  }
  return undefined;
}

export function shardLabel(ring: string): string {
  return `${SHARD_LABEL_PREFIX}${ring}`;
}

export function drainLabel(ring: string): string {
  return `${DRAIN_LABEL_PREFIX}${ring}`;
}

/** The selector of every watch of the ring's resources: only the objects assigned to this shard. */
export function shardSelector(m: RingMembership): string {
  return `${shardLabel(m.ring)}=${m.shard}`;
}

/** The sharder asks this shard to let the object go (the label's value does not matter). */
export function isDraining(obj: DeepReadonly<KubeObject> | undefined, ring: string): boolean {
  return obj?.metadata?.labels?.[drainLabel(ring)] !== undefined;
}

/**
 * The one write that hands a drained object back: both labels removed, tested against the
 * resourceVersion the decision was made on, so a change since (a new owner, a user's edit) makes
 * it fail instead of removing a label someone else just set.
 */
export function drainAcknowledgement(obj: DeepReadonly<KubeObject>, ring: string): Patch {
  const rv = obj.metadata?.resourceVersion;
  if (!rv) throw new Error('metadata.resourceVersion: a drain is acknowledged only against the version it was read at');
  const labels = obj.metadata?.labels ?? {};
  const removals: JsonPatchOperation[] = [drainLabel(ring), shardLabel(ring)]
    .filter((key) => labels[key] !== undefined)
    .map((key) => ({ op: 'remove', path: `/metadata/labels/${jsonPointerEscape(key)}` }));
  return jsonPatch(removals, { resourceVersion: rv });
}

/** What a watch DELETE from a shard-filtered cache means. */
export type LeftViewReason = 'deleted' | 'moved-or-deleted';

/**
 * A selector-filtered watch reports an object whose shard label moved away as DELETE, carrying
 * the object as it was before the move: the event alone cannot tell a move from a deletion. An
 * object the API deletes through graceful deletion or a finalizer (every pod and PVC a CloneSet
 * deletes) shows its deletion mark first, so a DELETE of a marked object is a deletion; one
 * without the mark may be either, and is treated as a move (never as a delete observed).
 */
export function leftViewReason(obj: DeepReadonly<KubeObject>): LeftViewReason {
  return obj.metadata?.deletionTimestamp ? 'deleted' : 'moved-or-deleted';
}

/** The object with the shard label of its controller: a shard labels what it creates itself. */
export function withShardLabelOf<T extends { metadata?: { labels?: Record<string, string> } }>(obj: T, owner: DeepReadonly<KubeObject>, ring: string | undefined): T {
  if (!ring) return obj;
  const shard = owner.metadata?.labels?.[shardLabel(ring)];
  if (shard === undefined) return obj;
  return { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata?.labels, [shardLabel(ring)]: shard } } };
}
