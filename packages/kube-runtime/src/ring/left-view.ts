// What an owned object leaving a cache means for its owner's expectations. Without a ring, a
// watch DELETE is a deletion. On a shard, it may be a move: the sharder relabels an owner's
// controlled objects to the new shard while it drains the owner (its reconciler.go moves
// controlled objects without a drain, the owner being the synchronization point), so for a
// while this shard may still hold the owner but no longer see its pods. Planning from that
// view would replace pods that still run elsewhere.
import type { KubeObject } from '../client/types.ts';
import type { DeepReadonly } from '../util/deep-readonly.ts';
import { leftViewReason } from './ring-labels.ts';

/** observe-delete: the delete the owner expected or a deletion. hold-owner: wait to see it again (or the owner leave). */
export type OwnedLeftView = 'observe-delete' | 'hold-owner';

export function ownedLeftView(obj: DeepReadonly<KubeObject>, context: { sharded: boolean; deletePending: boolean }): OwnedLeftView {
  if (!context.sharded || context.deletePending) return 'observe-delete';
  return leftViewReason(obj) === 'deleted' ? 'observe-delete' : 'hold-owner';
}

/**
 * A held object as the API has it now (undefined: not found): gone, replaced under its name (another
 * uid) or terminating is a deletion, observed at once; one still there lives on another shard (or
 * none yet), and the owner keeps waiting to see it again or to leave this shard itself.
 */
export function confirmedLeftView(left: DeepReadonly<KubeObject>, current: DeepReadonly<KubeObject> | undefined): OwnedLeftView {
  if (!current || current.metadata?.deletionTimestamp) return 'observe-delete';
  return current.metadata?.uid !== left.metadata?.uid ? 'observe-delete' : 'hold-owner';
}
