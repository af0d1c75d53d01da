// ControllerRevisions (OpenKruise's ControllerRevisions): created and owned, pods labelled with them, an identical template
// reuses its revision, a rollback reuses the old one (same name, bumped .revision), history is
// truncated to revisionHistoryLimit without touching live revisions; CloneSetShortHash labels.
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace, startController, type RunningController } from './harness.ts';
import {
  REVISION_LABEL,
  TEMPLATE_HASH_LABEL,
  apply,
  cloneSet,
  getCloneSet,
  listPods,
  listRevisions,
  readyPods,
  scale,
  sleep,
  type ControllerRevision,
} from './support.ts';

const HASH = /^[bcdfghjklmnpqrstvwxz2456789]+$/;

const setImage = (ns: string, name: string, image: string): Promise<string> =>
  kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);

async function revisionsByName(ns: string): Promise<Map<string, ControllerRevision>> {
  return new Map((await listRevisions(ns)).map((r) => [r.metadata.name, r]));
}

/** Waits until status.updateRevision differs from `previous` (or equals `expected`), returns it. */
async function updateRevisionAfter(ns: string, name: string, check: (rev: string) => boolean): Promise<string> {
  return eventually('updateRevision', async () => {
    const cs = await getCloneSet(ns, name);
    const rev = cs?.status?.updateRevision;
    return rev && cs.status?.observedGeneration === cs.metadata.generation && check(rev) ? rev : undefined;
  });
}

describe('CloneSet revisions', () => {
  let ns: string;
  let controller: RunningController;
  let first: string;

  controllerInNamespace('cs-rev', (s) => ({ ns, controller } = s));

  it('creates an owned ControllerRevision and labels pods with it', async () => {
    // Paused: template changes below make revisions without rolling pods, which keeps this fast.
    await apply(ns, cloneSet('rev', 2, { updateStrategy: { paused: true }, revisionHistoryLimit: 10 }));
    const pods = await readyPods(ns, 'app=rev', 2);
    const cs = (await getCloneSet(ns, 'rev'))!;
    first = await updateRevisionAfter(ns, 'rev', () => true);
    const revs = await listRevisions(ns);
    expect(revs.map((r) => r.metadata.name)).toEqual([first]);
    const [rev] = revs;
    const hash = first.slice('rev-'.length);
    expect(first).toBe(`rev-${hash}`);
    expect(hash).toMatch(HASH);
    expect(rev!.revision).toBe(1);
    expect(rev!.metadata.labels).toMatchObject({ app: 'rev', 'controller.kubernetes.io/hash': hash });
    expect(rev!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CloneSet', name: 'rev', uid: cs.metadata.uid, controller: true })]);
    expect(cs.status?.currentRevision).toBe(first);
    for (const p of pods) {
      expect(p.metadata.labels?.[REVISION_LABEL]).toBe(first);
      expect(p.metadata.labels?.[TEMPLATE_HASH_LABEL]).toBe(hash);
    }
  });

  it('reuses the revision for an identical template (other spec changes, a restarted controller)', async () => {
    await scale(ns, 'rev', 3);
    await readyPods(ns, 'app=rev', 3);
    await kubectl(['annotate', 'clone', 'rev', '-n', ns, 'note=unrelated', '--overwrite']);
    await controller.stop();
    controller = startController(ns);
    await kubectl(['patch', 'clone', 'rev', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { minReadySeconds: 0, revisionHistoryLimit: 5 } })]);
    await updateRevisionAfter(ns, 'rev', () => true);
    await sleep(1_000);
    expect([...(await revisionsByName(ns)).keys()]).toEqual([first]);
    expect((await getCloneSet(ns, 'rev'))?.status?.updateRevision).toBe(first);
    expect((await listPods(ns, 'app=rev')).map((p) => p.metadata.labels?.[REVISION_LABEL])).toEqual([first, first, first]);
  });

  it('creates a new revision for a new template, and new pods get it', async () => {
    await setImage(ns, 'rev', 'nginx:1.27');
    const second = await updateRevisionAfter(ns, 'rev', (r) => r !== first);
    const revs = await revisionsByName(ns);
    expect(revs.get(second)?.revision).toBe(2);
    expect(revs.get(first)?.revision).toBe(1);
    // Paused: existing pods stay; a scale-out creates pods at the update revision.
    await scale(ns, 'rev', 4);
    const pods = await readyPods(ns, 'app=rev', 4);
    const labels = pods.map((p) => p.metadata.labels?.[REVISION_LABEL]).sort();
    expect(labels).toEqual([first, first, first, second].sort());
    const cs = await getCloneSet(ns, 'rev');
    expect(cs?.status).toMatchObject({ currentRevision: first, updateRevision: second, updatedReplicas: 1 });
  });

  it('rolls back to an older template by reusing its revision (same name, bumped .revision)', async () => {
    await setImage(ns, 'rev', 'nginx:alpine');
    await updateRevisionAfter(ns, 'rev', (r) => r === first);
    const revs = await eventually('revision bumped', async () => {
      const m = await revisionsByName(ns);
      return m.get(first)?.revision === 3 ? m : undefined;
    });
    expect(revs.size).toBe(2);
    // The pods labelled with it count as updated again.
    await eventually('3 of 4 updated', async () => (await getCloneSet(ns, 'rev'))?.status?.updatedReplicas === 3);
  });

  it('truncates history to revisionHistoryLimit, keeping current, update and pod revisions', async () => {
    // Pods: 3 at `first` (current), 1 at the second revision (live only through that pod).
    const podRevisions = new Set((await listPods(ns, 'app=rev')).map((p) => p.metadata.labels?.[REVISION_LABEL]));
    await kubectl(['patch', 'clone', 'rev', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { revisionHistoryLimit: 1 } })]);
    const made: string[] = [];
    for (const tag of ['1.25', '1.26', '1.28']) {
      await setImage(ns, 'rev', `nginx:${tag}`);
      made.push(await updateRevisionAfter(ns, 'rev', (r) => !made.includes(r) && r !== first && !podRevisions.has(r)));
    }
    const [a, b, c] = made as [string, string, string];
    const live = new Set([first, c, ...[...podRevisions].filter((x): x is string => !!x)]);
    // Non-live: a, b, and any revision no pod carries any more; only the newest one is kept.
    const names = await eventually('history truncated', async () => {
      const m = await revisionsByName(ns);
      return !m.has(a) && m.has(b) ? [...m.keys()] : undefined;
    });
    for (const l of live) expect(names).toContain(l);
    expect(names.filter((n) => !live.has(n))).toEqual([b]);
    await kubectl(['patch', 'clone', 'rev', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { revisionHistoryLimit: 0 } })]);
    await eventually('only live revisions left', async () => {
      const m = await revisionsByName(ns);
      return m.size === live.size && [...live].every((l) => m.has(l));
    });
  });
});

describe('CloneSet revisions with CloneSetShortHash', () => {
  let ns: string;

  controllerInNamespace('cs-revshort', (s) => ({ ns } = s), { controller: { featureGates: { CloneSetShortHash: true } } });

  it('labels pods with the hash only, and still counts them as updated', async () => {
    await apply(ns, cloneSet('short', 2));
    const pods = await readyPods(ns, 'app=short', 2);
    const cs = await eventually('status', async () => {
      const c = await getCloneSet(ns, 'short');
      return c?.status?.updatedReplicas === 2 ? c : undefined;
    });
    const rev = cs.status!.updateRevision!;
    const hash = rev.slice('short-'.length);
    expect(rev).toBe(`short-${hash}`);
    expect(hash).toMatch(HASH);
    for (const p of pods) {
      expect(p.metadata.labels?.[REVISION_LABEL]).toBe(hash);
      expect(p.metadata.labels?.[TEMPLATE_HASH_LABEL]).toBe(hash);
    }
    expect((await listRevisions(ns)).map((r) => r.metadata.name)).toEqual([rev]);
  });
});
