// The edits the plugin makes to a CloneSet, as patches decided from the object as read: pause
// and resume (spec.updateStrategy.paused), restart (kubectl's restartedAt template
// annotation), set image, partition, and undo (the template of a revision).
import { KUBECTL_RESTARTED_AT_ANNOTATION, type CloneSet } from '@cloneset-suite/api-types';
import { jsonPatch, mergePatch, type JsonPatchOperation, type Patch } from '@cloneset-suite/kube-runtime';
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { UsageError } from './usage-error.ts';

/** JSON patches computed from the object as read apply only if it has not changed since. */
function againstRead(cs: CloneSet, ops: JsonPatchOperation[]): Patch {
  const resourceVersion = cs.metadata?.resourceVersion;
  return jsonPatch(ops, resourceVersion ? { resourceVersion } : {});
}

export function pauseEdit(cs: CloneSet, paused: boolean): Patch {
  const name = cs.metadata?.name ?? '';
  const now = cs.spec.updateStrategy?.paused === true;
  if (now === paused) throw new UsageError(`clonesets.apps.kruise.io "${name}" is ${paused ? 'already paused' : 'not paused'}`);
  return mergePatch({ spec: { updateStrategy: { paused } } });
}

/** kubectl's format: RFC 3339 to the second. */
export function restartEdit(now: Date): Patch {
  const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return mergePatch({ spec: { template: { metadata: { annotations: { [KUBECTL_RESTARTED_AT_ANNOTATION]: at } } } } });
}

export interface ImageAssignment {
  /** A container name, or `*` for every container. */
  container: string;
  image: string;
}

/** `name=image` arguments; at least one. */
export function parseImageAssignments(args: readonly string[]): ImageAssignment[] {
  if (args.length === 0) throw new UsageError('at least one image update is required: give CONTAINER=IMAGE');
  return args.map((arg) => {
    const eq = arg.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid image update "${arg}": expected CONTAINER=IMAGE`);
    return { container: arg.slice(0, eq), image: arg.slice(eq + 1) };
  });
}

/** Replaces the image of each named container (init containers included); an unknown name is an error. */
export function setImageEdit(cs: CloneSet, assignments: readonly ImageAssignment[]): Patch {
  const spec = (cs.spec.template).spec;
  const lists = [
    { path: '/spec/template/spec/initContainers', containers: spec?.initContainers ?? [] },
    { path: '/spec/template/spec/containers', containers: spec?.containers ?? [] },
  ];
  const ops: JsonPatchOperation[] = [];
  for (const a of assignments) {
    let found = false;
    for (const list of lists) {
      list.containers.forEach((c, i) => {
        if (a.container !== '*' && c.name !== a.container) return;
        found = true;
        ops.push({ op: 'replace', path: `${list.path}/${i}/image`, value: a.image });
      });
    }
    if (!found) throw new UsageError(`unable to find container named "${a.container}"`);
  }
  return againstRead(cs, ops);
}

/**
 * `N` sets an integer partition; anything else is sent as the string it is (e.g. `20%`) so the
 * server's validation, not a second copy of it here, decides and names the problem.
 */
export function partitionEdit(value: string): Patch {
  return mergePatch({ spec: { updateStrategy: { partition: /^[0-9]+$/.test(value) ? Number(value) : value } } });
}

export function undoEdit(cs: CloneSet, template: V1PodTemplateSpec): Patch {
  return againstRead(cs, [{ op: 'replace', path: '/spec/template', value: template }]);
}
