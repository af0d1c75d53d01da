// The CloneSet's /status write is conditional on the resourceVersion its status
// was computed from. Another writer's status lands between the controller's cache read and its
// status write (the test holds the controller's request until it has written): the controller's
// stale status must not replace it. The conflict is replanned, so the CloneSet still settles, with
// no Warning Event and no Failed* condition, and the other writer's condition survives.
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import type { HttpRequest } from '@cloneset-suite/kube-runtime';
import { controllerInNamespace } from './harness.ts';
import { apply, cloneSet, getCloneSet, listEvents, readyPods, scale } from './support.ts';

const NAME = 'racy';
const MARKER = { type: 'ExternalWriterMarker', status: 'True', reason: 'Test', message: 'written between the controller\'s cache read and its status write' };

describe('CloneSet status write races another writer', () => {
  let ns: string;
  let armed = false;
  let raced = 0;

  /** Holds the controller's next status write of the CloneSet until another writer has written its status. */
  const raceStatusWrite = async (req: HttpRequest): Promise<void> => {
    if (!armed || req.method !== 'PATCH' || !req.path.endsWith(`/clonesets/${NAME}/status`)) return;
    armed = false;
    await kubectl(['patch', 'clone', NAME, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [MARKER] } })]);
    raced++;
  };

  controllerInNamespace('cs-status-race', (s) => ({ ns } = s), { beforeSend: raceStatusWrite });

  it('a status computed before another writer\'s status does not overwrite it; the pass is replanned and settles', async () => {
    await apply(ns, cloneSet(NAME, 1));
    await readyPods(ns, `app=${NAME}`, 1);
    await eventually('status settled at 1', async () => (await getCloneSet(ns, NAME))?.status?.readyReplicas === 1);

    armed = true;
    await scale(ns, NAME, 2);
    await readyPods(ns, `app=${NAME}`, 2);
    const cs = await eventually('status settled at 2, the other writer\'s condition kept', async () => {
      const c = await getCloneSet(ns, NAME);
      const settled = c?.status?.readyReplicas === 2 && c.status.observedGeneration === c.metadata.generation;
      return settled && c.status?.conditions?.some((x) => x.type === MARKER.type) ? c : undefined;
    }, { timeoutMs: 60_000 });
    expect(raced).toBe(1);
    expect(cs.status?.conditions?.filter((c) => c.type.startsWith('Failed') && c.status === 'True')).toEqual([]);
    expect((await listEvents(ns)).filter((e) => e.type === 'Warning').map((e) => `${e.reason}: ${e.message}`)).toEqual([]);
  });
});
