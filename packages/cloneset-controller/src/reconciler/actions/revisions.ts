// The revisions family (OpenKruise's ControllerRevisions): ControllerRevisions created with the exact bytes OpenKruise hashes,
// bumped on a rollback, and truncated to the history limit.
import { RawJson, isAlreadyExists, isNotFound, mergePatch, type KubeObject } from '@cloneset-suite/kube-runtime';
import type { RevisionAction } from '../../core/plan.ts';
import { revisionResource } from '../resources.ts';
import { asCreated, inNamespace, type ExecutionContext } from './context.ts';

export async function runRevisionAction(action: RevisionAction, ctx: ExecutionContext): Promise<void> {
  const revisions = ctx.client.resource<KubeObject>(revisionResource);
  const ns = ctx.cs.metadata.namespace;
  switch (action.kind) {
    case 'createRevision':
      try {
        // The exact bytes: OpenKruise compares and hashes revision data byte for byte (OpenKruise's ControllerRevisions).
        await revisions.create(asCreated(ctx, { ...action.revision, data: new RawJson(action.data) }), inNamespace(ctx));
      } catch (err) {
        // A clash is resolved by the next pass (collisionCount, as for a Deployment's ReplicaSets).
        if (!isAlreadyExists(err)) throw err;
      }
      return;
    case 'updateRevision':
      await revisions.patch(ns, action.name, mergePatch({ revision: action.revision, ...(action.annotations ? { metadata: { annotations: action.annotations } } : {}) }), { signal: ctx.signal });
      return;
    case 'deleteRevision':
      try {
        await revisions.delete(ns, action.name, { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
  }
}
