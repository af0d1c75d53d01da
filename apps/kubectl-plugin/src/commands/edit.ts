// The one-patch verbs: rollout pause/resume/restart, set image, partition. Read, decide the
// patch (pure), send it; the server's admission decides and its refusal is printed as is.
import type { Patch } from '@cloneset-suite/kube-runtime';
import type { CloneSet } from '@cloneset-suite/api-types';
import type { OutputFormat } from '../args.ts';
import type { CloneSetApi } from '../cluster.ts';
import { parseImageAssignments, partitionEdit, pauseEdit, restartEdit, setImageEdit } from '../core/edits.ts';
import { formatObject, resourceRef, type Io } from './io.ts';

export type EditVerb = { verb: 'pause' | 'resume' | 'restart' } | { verb: 'set-image'; images: string[] } | { verb: 'partition'; value: string };

function decide(cs: CloneSet, e: EditVerb, now: Date): { patch: Patch; done: string } {
  switch (e.verb) {
    case 'pause':
      return { patch: pauseEdit(cs, true), done: 'paused' };
    case 'resume':
      return { patch: pauseEdit(cs, false), done: 'resumed' };
    case 'restart':
      return { patch: restartEdit(now), done: 'restarted' };
    case 'set-image':
      return { patch: setImageEdit(cs, parseImageAssignments(e.images)), done: 'image updated' };
    case 'partition':
      return { patch: partitionEdit(e.value), done: `partition set to ${e.value}` };
  }
}

export async function edit(api: CloneSetApi, io: Io, o: { name: string; output: OutputFormat | undefined } & EditVerb): Promise<number> {
  const cs = await api.get(o.name);
  const { patch, done } = decide(cs, o, io.now());
  const updated = await api.patch(o.name, patch);
  io.out(o.output ? formatObject(updated, o.output) : `${resourceRef(o.name)} ${done}\n`);
  return 0;
}
