// paused (OpenKruise's updateStrategy; OpenKruise's update gates) halts a rollout mid-way (scaling still works, at the update
// revision) and resuming finishes it; a rollback to the previous image reuses the old
// ControllerRevision (same controller-revision-hash), no new revision is created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import type {
  Observer} from './rollout-kit.ts';
import {
  apply,
  cloneSetManifest,
  getCloneSet,
  imageOf,
  patchCloneSet,
  podsOf,
  revisionOf,
  sleep,
  waitNewRevision,
  waitSettled,
  setUpRollout,
} from './rollout-kit.ts';

const NAME = 'pausable';
const setImage = (ns: string, image: string) =>
  kubectl(['patch', 'clone', NAME, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);

interface Revision { metadata: { name: string }; revision: number }

describe('pause, resume and rollback', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;
  let revA: string;
  let revB: string;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-pause'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  const revisions = async (): Promise<Revision[]> => (await getJson<{ items: Revision[] }>(['controllerrevisions', '-n', ns]))?.items ?? [];

  it('paused halts the rollout mid-way; scaling still creates pods at the update revision; resuming finishes', async () => {
    await apply(ns, cloneSetManifest(NAME, { replicas: 6, progressDeadlineSeconds: 60, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }));
    revA = (await waitSettled(ns, NAME, 6)).status?.updateRevision ?? '';
    const t = observer.track(NAME, { replicas: 6, maxUnavailable: 1, maxPods: 7 });
    await setImage(ns, 'nginx:1.25');
    revB = await waitNewRevision(ns, NAME, revA);
    await eventually('2 pods updated', async () => ((await getCloneSet(ns, NAME)).status?.updatedReplicas ?? 0) >= 2, { intervalMs: 50 });
    await patchCloneSet(ns, NAME, { spec: { updateStrategy: { paused: true } } });
    // An update already issued when the pause arrived may still land: let it.
    await sleep(1_000);
    const movedAtPause = observer.activePods(NAME).filter((p) => revisionOf(p) === revB).length;
    expect(movedAtPause).toBeGreaterThanOrEqual(2);
    expect(movedAtPause).toBeLessThan(6);
    const since = observer.moves.length;
    await sleep(3_000);
    expect(observer.moves.slice(since).filter((m) => m.revision === revB)).toEqual([]);
    const paused = await getCloneSet(ns, NAME);
    expect(paused.status?.updatedReplicas).toBe(movedAtPause);
    expect(paused.status?.currentRevision).toBe(revA);
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'CloneSetPaused' });

    // Scaling continues while paused, and a new pod is created at the update revision (OpenKruise's updateStrategy).
    await kubectl(['scale', 'clone', NAME, '-n', ns, '--replicas=7']);
    const added = await eventually('a 7th pod', async () => {
      const pods = await podsOf(ns, NAME);
      return pods.length === 7 ? pods.find((p) => !observer.moves.slice(0, since).some((m) => m.uid === p.metadata.uid)) : undefined;
    });
    expect(revisionOf(added)).toBe(revB);
    expect(imageOf(added)).toBe('nginx:1.25');
    await kubectl(['scale', 'clone', NAME, '-n', ns, '--replicas=6']);
    observer.untrack(NAME);
    expect(t.violations).toEqual([]);

    const t2 = observer.track(NAME, { replicas: 6, maxUnavailable: 1, maxPods: 7 });
    await patchCloneSet(ns, NAME, { spec: { updateStrategy: { paused: false } } });
    const done = await waitSettled(ns, NAME, 6, 40_000);
    expect(done.status).toMatchObject({ updatedReplicas: 6, updatedAvailableReplicas: 6, currentRevision: revB, updateRevision: revB });
    expect(done.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'CloneSetAvailable' });
    expect(t2.violations).toEqual([]);
    observer.untrack(NAME);
  });

  it('rollback to the previous image reuses the old revision and its hash', async () => {
    const before = await revisions();
    expect(before.map((r) => r.metadata.name).sort()).toEqual([revA, revB].sort());
    const pods = await podsOf(ns, NAME);
    const t = observer.track(NAME, { replicas: 6, maxUnavailable: 1, maxPods: 6 });
    await setImage(ns, 'nginx:1.24');
    const back = await waitNewRevision(ns, NAME, revB);
    expect(back).toBe(revA);
    const done = await waitSettled(ns, NAME, 6, 40_000);
    expect(done.status).toMatchObject({ updateRevision: revA, currentRevision: revA, updatedReplicas: 6 });
    const after = await podsOf(ns, NAME);
    expect(after.every((p) => revisionOf(p) === revA && imageOf(p) === 'nginx:1.24')).toBe(true);
    expect(after.every((p) => p.metadata.labels?.['pod-template-hash'] === revA.slice(revA.lastIndexOf('-') + 1))).toBe(true);
    // In place both ways: the same pods.
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
    // No third revision; the old one became the newest (OpenKruise's ControllerRevisions).
    const revs = await revisions();
    expect(revs.map((r) => r.metadata.name).sort()).toEqual([revA, revB].sort());
    const num = (name: string) => revs.find((r) => r.metadata.name === name)!.revision;
    expect(num(revA)).toBeGreaterThan(num(revB));
    expect(t.violations).toEqual([]);
    expect(observer.statusViolations).toEqual([]);
  });

  it('changing the image back in the middle of a ReCreate rollout returns every pod to the old revision', async () => {
    const name = 'midway';
    await apply(ns, cloneSetManifest(name, { replicas: 4, updateStrategy: { maxUnavailable: 1 } }));
    const first = (await waitSettled(ns, name, 4)).status?.updateRevision ?? '';
    const t = observer.track(name, { replicas: 4, maxUnavailable: 1, maxPods: 4 });
    const image = (v: string) =>
      kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: v }])]);
    await image('nginx:1.25');
    const second = await waitNewRevision(ns, name, first);
    await eventually('some pods on the new revision', () => Promise.resolve(observer.activePods(name).some((p) => revisionOf(p) === second)), { intervalMs: 50 });
    await image('nginx:1.24');
    const done = await waitSettled(ns, name, 4, 40_000);
    expect(done.status).toMatchObject({ updateRevision: first, currentRevision: first, updatedReplicas: 4 });
    expect((await podsOf(ns, name)).every((p) => revisionOf(p) === first && imageOf(p) === 'nginx:1.24')).toBe(true);
    expect(t.violations).toEqual([]);
    observer.untrack(name);
  });
});
