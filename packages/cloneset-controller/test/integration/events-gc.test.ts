// Events (OpenKruise's CloneSet Events) as `kubectl get events` shows them, folded as client-go folds them past 9
// similar ones, and CloneSet deletion cascading to pods, PVCs and revisions through the garbage
// collector (OpenKruise's controller mechanics).
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace } from './harness.ts';
import { apply, cloneSet, getCloneSet, listEvents, listPods, listPvcs, listRevisions, readyPods, scale } from './support.ts';

const vct = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];

describe('events and cascading deletion', () => {
  let ns: string;

  controllerInNamespace('cs-events', (s) => ({ ns } = s));

  it('records SuccessfulCreate and SuccessfulDelete on the CloneSet, visible with kubectl get events', async () => {
    await apply(ns, cloneSet('ev', 3, { volumeClaimTemplates: vct }));
    const pods = await readyPods(ns, 'app=ev', 3);
    const created = await eventually('3 SuccessfulCreate', async () => {
      const e = await listEvents(ns, 'SuccessfulCreate');
      return e.length === 3 ? e : undefined;
    });
    for (const e of created) {
      expect(e).toMatchObject({ type: 'Normal', involvedObject: { kind: 'CloneSet', name: 'ev' } });
      expect(e.reportingComponent ?? e.source?.component).toBe('cloneset-controller');
    }
    expect(created.map((e) => e.message ?? e.note).sort()).toEqual(pods.map((p) => `succeed to create pod ${p.metadata.name}`).sort());
    await scale(ns, 'ev', 2);
    const [gone] = await eventually('one pod deleted', async () => {
      const left = new Set((await listPods(ns, 'app=ev')).map((p) => p.metadata.name));
      const d = pods.filter((p) => !left.has(p.metadata.name));
      return left.size === 2 && d.length === 1 ? d : undefined;
    });
    const deleted = await eventually('SuccessfulDelete', async () => {
      const e = await listEvents(ns, 'SuccessfulDelete');
      return e.length === 1 ? e : undefined;
    });
    expect(deleted[0]).toMatchObject({ type: 'Normal', involvedObject: { kind: 'CloneSet', name: 'ev' } });
    expect(deleted[0]!.message ?? deleted[0]!.note).toBe(`succeed to delete pod ${gone!.metadata.name}`);
    // The kubectl table view lists them too.
    const table = await kubectl(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.kind=CloneSet']);
    expect(table).toMatch(/SuccessfulCreate/);
    expect(table).toMatch(/SuccessfulDelete/);
  });

  it('deleting the CloneSet removes its pods, PVCs and revisions through garbage collection', async () => {
    await eventually('2 claims', async () => (await listPvcs(ns)).filter((c) => !c.metadata.deletionTimestamp).length === 2);
    expect(await listRevisions(ns)).toHaveLength(1);
    await kubectl(['delete', 'clone', 'ev', '-n', ns, '--wait=false']);
    await eventually('CloneSet gone', async () => (await getCloneSet(ns, 'ev')) === undefined);
    await eventually('pods, claims and revisions gone', async () =>
      (await listPods(ns, 'app=ev', { terminating: true })).length === 0 && (await listPvcs(ns)).length === 0 && (await listRevisions(ns)).length === 0,
    { timeoutMs: 60_000 });
  });

  it('folds the SuccessfulCreate Events of a larger scale-out as client-go does: 9 of their own, then one combined', async () => {
    await apply(ns, cloneSet('many', 14));
    const pods = await readyPods(ns, 'app=many', 14);
    const created = await eventually('10 SuccessfulCreate', async () => {
      const e = (await listEvents(ns, 'SuccessfulCreate')).filter((x) => x.involvedObject?.name === 'many');
      return e.length === 10 ? e : undefined;
    });
    const notes = created.map((e) => e.message ?? e.note ?? '');
    const names = new Set(pods.map((p) => p.metadata.name));
    const own = notes.filter((n) => names.has(n.replace(/^succeed to create pod /, '')));
    const combined = notes.filter((n) => n.startsWith('(combined from similar events): succeed to create pod '));
    expect(own).toHaveLength(9);
    expect(combined).toHaveLength(1);
    // No more than 10 ever: the other 4 count into the combined Event's series.
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await listEvents(ns, 'SuccessfulCreate')).filter((x) => x.involvedObject?.name === 'many')).toHaveLength(10);
  });
});
