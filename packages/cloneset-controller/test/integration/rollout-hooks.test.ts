// Lifecycle hooks during an in-place rollout (OpenKruise's lifecycle state machine): a pod carrying the inPlaceUpdate hook's
// finalizer is held in PreparingUpdate (not ready, markPodNotReady) until the test's "user
// controller" removes the finalizer; after the update it waits in Updated until the user
// re-adds it, then goes Normal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import type {
  Observer} from './rollout-kit.ts';
import {
  apply,
  cloneSetManifest,
  condition,
  getCloneSet,
  imageOf,
  isReady,
  lifecycleState,
  podsOf,
  revisionOf,
  sleep,
  waitNewRevision,
  waitSettled,
  type Pod,
  setUpRollout,
} from './rollout-kit.ts';

const NAME = 'hooked';
const FINALIZER = 'example.com/upgrade-guard';
const HOLD_MS = 1_500;

/** What the user controller saw and did, per pod name. */
interface Record {
  preparingSince?: number;
  heldNotReady?: boolean;
  imageWhileHeld?: string;
  releasedAt?: number;
  rearmedAt?: number;
}

describe('lifecycle hooks during a rollout', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;
  const records = new Map<string, Record>();
  let userLoop: Promise<void> | undefined;
  let stopUser = false;

  const setFinalizers = (pod: string, finalizers: string[]) =>
    kubectl(['patch', 'pod', pod, '-n', ns, '--type=merge', '-p', JSON.stringify({ metadata: { finalizers } })]);

  /** The user's controller: guards Normal pods, releases held pods after a while, re-arms updated ones. */
  async function userController(): Promise<void> {
    while (!stopUser) {
      for (const pod of observer.activePods(NAME)) {
        const name = pod.metadata.name;
        const has = pod.metadata.finalizers?.includes(FINALIZER) ?? false;
        const state = lifecycleState(pod);
        const r = records.get(name) ?? {};
        records.set(name, r);
        try {
          if (state === 'Normal' && !has && r.releasedAt === undefined) {
            await setFinalizers(name, [FINALIZER]);
          } else if (state === 'PreparingUpdate' && has) {
            r.preparingSince ??= Date.now();
            if (Date.now() - r.preparingSince >= HOLD_MS) {
              r.heldNotReady = condition(pod, 'KruisePodReady')?.status === 'False' && !isReady(pod);
              r.imageWhileHeld = imageOf(pod);
              r.releasedAt = Date.now();
              await setFinalizers(name, []);
            }
          } else if (state === 'Updated' && !has) {
            r.rearmedAt = Date.now();
            await setFinalizers(name, [FINALIZER]);
          }
        } catch {
          // A conflict or a vanished pod: look again on the next round.
        }
      }
      await sleep(100);
    }
  }

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-hooks'));
  });
  afterAll(async () => {
    stopUser = true;
    await userLoop;
    // Let the namespace go: drop the user's finalizers.
    for (const p of observer ? observer.activePods(NAME) : []) {
      if (p.metadata.finalizers?.length) await setFinalizers(p.metadata.name, []).catch(() => undefined);
    }
    await tearDown?.();
  });

  it('holds each pod in PreparingUpdate until the user removes the finalizer, then Updated -> Normal once re-added', async () => {
    await apply(ns, cloneSetManifest(NAME, {
      replicas: 3,
      sim: { 'sim.cloneset-suite.io/ready-delay': '500ms' },
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 },
      lifecycle: { inPlaceUpdate: { finalizersHandler: [FINALIZER], markPodNotReady: true } },
    }));
    const oldRevision = (await waitSettled(ns, NAME, 3)).status?.updateRevision ?? '';
    userLoop = userController();
    const before = await eventually('every pod guarded by the finalizer', async () => {
      const pods = await podsOf(ns, NAME);
      return pods.length === 3 && pods.every((p) => p.metadata.finalizers?.includes(FINALIZER) && lifecycleState(p) === 'Normal') ? pods : undefined;
    });

    const t = observer.track(NAME, { replicas: 3, maxUnavailable: 1, maxPods: 3 });
    const since = observer.moves.length;
    await kubectl(['patch', 'clone', NAME, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    const newRevision = await waitNewRevision(ns, NAME, oldRevision);

    // The first pod is held: PreparingUpdate, not ready, still on the old image and revision.
    const held = await eventually('a pod in PreparingUpdate', () =>
      Promise.resolve(observer.activePods(NAME).find((p) => lifecycleState(p) === 'PreparingUpdate')),
    );
    expect(revisionOf(held)).toBe(oldRevision);
    expect(imageOf(held)).toBe('nginx:1.24');
    // Only one pod at a time is taken out of service (maxUnavailable 1).
    expect(observer.activePods(NAME).filter((p) => lifecycleState(p) !== 'Normal')).toHaveLength(1);

    const cs = await waitSettled(ns, NAME, 3, 45_000);
    expect(cs.status).toMatchObject({ updatedReplicas: 3, updatedReadyReplicas: 3, updatedAvailableReplicas: 3, currentRevision: newRevision });
    await eventually('all pods Normal and guarded again', () => {
      const pods = observer.activePods(NAME);
      return Promise.resolve(pods.length === 3 && pods.every((p) => lifecycleState(p) === 'Normal' && p.metadata.finalizers?.includes(FINALIZER)));
    });
    const after: Pod[] = observer.activePods(NAME);
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(before.map((p) => p.metadata.uid).sort());
    for (const pod of after) {
      const r = records.get(pod.metadata.name)!;
      const moved = observer.moves.slice(since).find((m) => m.uid === pod.metadata.uid && m.revision === newRevision);
      expect(imageOf(pod)).toBe('nginx:1.25');
      // Held for at least HOLD_MS, not ready while held, and not touched before the release.
      expect(r.heldNotReady).toBe(true);
      expect(r.imageWhileHeld).toBe('nginx:1.24');
      expect(moved!.at).toBeGreaterThanOrEqual(r.releasedAt!);
      expect(r.rearmedAt).toBeGreaterThanOrEqual(r.releasedAt!);
      // markPodNotReady's key is gone once the pod serves again.
      expect(condition(pod, 'KruisePodReady')?.status).toBe('True');
    }
    expect(t.violations).toEqual([]);
    expect(observer.statusViolations).toEqual([]);
    expect((await getCloneSet(ns, NAME)).status?.conditions?.find((c) => c.type === 'FailedUpdate' && c.status === 'True')).toBeUndefined();
  });
});
