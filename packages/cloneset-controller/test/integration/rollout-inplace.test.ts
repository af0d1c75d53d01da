// In-place update (OpenKruise's in-place rules; OpenKruise's in-place update): an image change under InPlaceIfPossible keeps pod
// names, UIDs and PVCs and restarts the container; an env change recreates; under
// InPlaceOnly an env change is refused by condition and Event, and nothing is recreated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import type { RunningController } from './harness.ts';
import type {
  Observer} from './rollout-kit.ts';
import {
  apply,
  cloneSetManifest,
  condition,
  getCloneSet,
  imageOf,
  lifecycleState,
  podsOf,
  revisionOf,
  sleep,
  waitNewRevision,
  waitSettled,
  type Pod,
  setUpRollout,
} from './rollout-kit.ts';

const NAME = 'ipu';
const STRICT = 'strict';
const vct = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
const setImage = (ns: string, name: string, image: string) =>
  kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);
const setEnv = (ns: string, name: string, value: string) =>
  kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'add', path: '/spec/template/spec/containers/0/env', value: [{ name: 'MODE', value }] }])]);

interface Pvc { metadata: { name: string; uid: string } }

describe('in-place update', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let controller: RunningController;
  let observer: Observer;
  let before: Pod[];
  let pvcUids: Map<string, string>;

  beforeAll(async () => {
    ({ ns, observer, controller, tearDown } = await setUpRollout('cs-roll-ipu'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  const claims = async (): Promise<Map<string, string>> =>
    new Map(((await getJson<{ items: Pvc[] }>(['pvc', '-n', ns]))?.items ?? []).map((c) => [c.metadata.name, c.metadata.uid]));

  it('InPlaceIfPossible image change: same names, UIDs and PVCs, containers restarted, no surge pod', async () => {
    await apply(ns, cloneSetManifest(NAME, {
      replicas: 5,
      volumeClaimTemplates: vct,
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 2, maxSurge: 1 },
    }));
    const oldRevision = (await waitSettled(ns, NAME, 5)).status?.updateRevision ?? '';
    before = await podsOf(ns, NAME);
    pvcUids = await claims();
    expect(pvcUids.size).toBe(5);
    // An in-place-able change creates no surge pod, so the count stays 5.
    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 2, maxPods: 5 });
    await setImage(ns, NAME, 'nginx:1.25');
    const newRevision = await waitNewRevision(ns, NAME, oldRevision);
    const cs = await waitSettled(ns, NAME, 5);
    expect(cs.status).toMatchObject({ updatedReplicas: 5, updatedReadyReplicas: 5, currentRevision: newRevision });

    const after = await podsOf(ns, NAME);
    const key = (p: Pod) => `${p.metadata.name}/${p.metadata.uid}`;
    expect(after.map(key).sort()).toEqual(before.map(key).sort());
    for (const pod of after) {
      const was = before.find((p) => p.metadata.uid === pod.metadata.uid)!;
      const status = pod.status?.containerStatuses?.[0];
      expect(revisionOf(pod)).toBe(newRevision);
      expect(imageOf(pod)).toBe('nginx:1.25');
      expect(status?.image).toBe('nginx:1.25');
      expect(status?.restartCount).toBe((was.status?.containerStatuses?.[0]?.restartCount ?? 0) + 1);
      expect(status?.imageID).not.toBe(was.status?.containerStatuses?.[0]?.imageID);
      expect(condition(pod, 'InPlaceUpdateReady')?.status).toBe('True');
      expect(lifecycleState(pod)).toBe('Normal');
      const state = JSON.parse(pod.metadata.annotations?.['apps.kruise.io/inplace-update-state'] ?? '{}') as { revision?: string };
      expect(state.revision).toBe(newRevision);
    }
    expect(await claims()).toEqual(pvcUids);
    expect(t.violations).toEqual([]);
    // One Normal event per pod updated in place (OpenKruise's in-place update).
    const events = await getJson<{ items: { type: string; reason: string; regarding?: { name?: string }; series?: { count: number } }[] }>(['events.v1.events.k8s.io', '-n', ns]);
    const inPlace = (events?.items ?? []).filter((e) => e.reason === 'SuccessfulUpdatePodInPlace' && e.regarding?.name === NAME);
    expect(inPlace.every((e) => e.type === 'Normal')).toBe(true);
    expect(inPlace.reduce((n, e) => n + (e.series?.count ?? 1), 0)).toBe(5);
    // Settled after an in-place update: a reconcile finds nothing to write (OpenKruise's status).
    await sleep(500);
    const writes = await controller.writes();
    await kubectl(['annotate', 'clone', NAME, '-n', ns, `poke=${Date.now()}`, '--overwrite']);
    await sleep(2_000);
    expect(await controller.writes()).toBe(writes);
    expect(t.maxUnavailableSeen).toBeGreaterThanOrEqual(1);
    expect(observer.statusViolations).toEqual([]);
    observer.untrack(NAME);
  });

  it('InPlaceIfPossible env change: pods are recreated (new names, UIDs and PVCs)', async () => {
    const current = (await getCloneSet(ns, NAME)).status?.updateRevision ?? '';
    const pods = await podsOf(ns, NAME);
    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 2, maxPods: 6 });
    await setEnv(ns, NAME, 'blue');
    await waitNewRevision(ns, NAME, current);
    await waitSettled(ns, NAME, 5, 45_000);
    const after = await podsOf(ns, NAME);
    const oldUids = new Set(pods.map((p) => p.metadata.uid));
    const oldNames = new Set(pods.map((p) => p.metadata.name));
    expect(after.some((p) => oldUids.has(p.metadata.uid))).toBe(false);
    expect(after.some((p) => oldNames.has(p.metadata.name))).toBe(false);
    expect(after.every((p) => p.spec.containers[0]?.env?.[0]?.value === 'blue')).toBe(true);
    const claimsAfter = await claims();
    expect([...claimsAfter.values()].some((uid) => [...pvcUids.values()].includes(uid))).toBe(false);
    expect(t.violations).toEqual([]);
    observer.untrack(NAME);
  });

  it('InPlaceOnly with maxSurge is refused by the apiserver', async () => {
    const bad = cloneSetManifest('bad', { replicas: 1, updateStrategy: { type: 'InPlaceOnly', maxSurge: 1 } });
    await expect(apply(ns, bad)).rejects.toThrow(/maxSurge/i);
  });

  it('InPlaceOnly with an env change: FailedUpdate condition and Warning Event, nothing recreated; reverting clears it', async () => {
    await apply(ns, cloneSetManifest(STRICT, { replicas: 3, updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } }));
    const original = (await waitSettled(ns, STRICT, 3)).status?.updateRevision ?? '';
    const pods = await podsOf(ns, STRICT);
    const t = observer.track(STRICT, { replicas: 3, maxUnavailable: 0, maxPods: 3 });
    await setEnv(ns, STRICT, 'green');
    await waitNewRevision(ns, STRICT, original);
    const cs = await eventually('FailedUpdate condition', async () => {
      const c = await getCloneSet(ns, STRICT);
      const cond = c.status?.conditions?.find((x) => x.type === 'FailedUpdate');
      return cond?.status === 'True' ? c : undefined;
    });
    expect(cs.status?.conditions?.find((x) => x.type === 'FailedUpdate')?.message).toMatch(/InPlaceOnly but can not update in-place/);
    await eventually('a Warning event on the CloneSet', async () => {
      const events = await getJson<{ items: { type: string; reason: string; note?: string; regarding?: { name?: string } }[] }>(['events.v1.events.k8s.io', '-n', ns]);
      return (events?.items ?? []).some((e) => e.type === 'Warning' && e.regarding?.name === STRICT && /in-place/.test(e.note ?? ''));
    });
    await sleep(2_000);
    const after = await podsOf(ns, STRICT);
    expect(after.map((p) => p.metadata.uid).sort()).toEqual(pods.map((p) => p.metadata.uid).sort());
    expect(after.every((p) => revisionOf(p) === original)).toBe(true);
    expect((await getCloneSet(ns, STRICT)).status).toMatchObject({ updatedReplicas: 0, replicas: 3, availableReplicas: 3 });
    expect(t.violations).toEqual([]);
    observer.untrack(STRICT);

    // Reverting the env brings the original revision back: the condition is cleared (failure conditions are kept true).
    await kubectl(['patch', 'clone', STRICT, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/template/spec/containers/0/env' }])]);
    await eventually('FailedUpdate cleared, back on the original revision', async () => {
      const c = await getCloneSet(ns, STRICT);
      const cond = c.status?.conditions?.find((x) => x.type === 'FailedUpdate');
      return c.status?.updateRevision === original && c.status.updatedReplicas === 3 && cond?.status === 'False';
    });
  });

  it('inPlaceUpdateStrategy.gracePeriodSeconds: the image changes only after the grace period, with the pod out of Ready', async () => {
    const GRACE = 'grace';
    await apply(ns, cloneSetManifest(GRACE, {
      replicas: 2,
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1, inPlaceUpdateStrategy: { gracePeriodSeconds: 3 } },
    }));
    const original = (await waitSettled(ns, GRACE, 2)).status?.updateRevision ?? '';
    const t = observer.track(GRACE, { replicas: 2, maxUnavailable: 1, maxPods: 2 });
    // When each pod's gate turned False and when its image changed, as the watch delivered them.
    const gateFalseAt = new Map<string, number>();
    const imageChangedAt = new Map<string, number>();
    const record = (obj: unknown): void => {
      const p = obj as Pod;
      if (p.metadata.labels?.app !== GRACE) return;
      if (condition(p, 'InPlaceUpdateReady')?.status === 'False' && !gateFalseAt.has(p.metadata.name)) gateFalseAt.set(p.metadata.name, Date.now());
      if (imageOf(p) === 'nginx:1.26' && !imageChangedAt.has(p.metadata.name)) imageChangedAt.set(p.metadata.name, Date.now());
    };
    observer.pods.addEventHandler({ onUpdate: (_b, a) => record(a) });
    await setImage(ns, GRACE, 'nginx:1.26');
    await waitNewRevision(ns, GRACE, original);
    await waitSettled(ns, GRACE, 2, 60_000);
    expect([...imageChangedAt.keys()].sort()).toEqual([...gateFalseAt.keys()].sort());
    expect(imageChangedAt.size).toBe(2);
    for (const [name, changed] of imageChangedAt) {
      // 3 s of grace; the two timestamps share the watch's delivery delay, so allow a little.
      expect(changed - gateFalseAt.get(name)!, name).toBeGreaterThanOrEqual(2_500);
    }
    // Never Ready with the gate False, never more than one pod out at a time.
    expect(t.violations).toEqual([]);
    observer.untrack(GRACE);
  });

  it('reverting the image during the grace period never deploys the reverted image (kruise #418)', async () => {
    const REVERT = 'revert';
    await apply(ns, cloneSetManifest(REVERT, {
      replicas: 1,
      image: 'nginx:1.25',
      updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1, inPlaceUpdateStrategy: { gracePeriodSeconds: 10 } },
    }));
    const original = (await waitSettled(ns, REVERT, 1)).status?.updateRevision ?? '';
    const [pod] = await podsOf(ns, REVERT);
    const restarts = pod!.status?.containerStatuses?.[0]?.restartCount ?? 0;
    const imagesSeen = new Set<string>();
    observer.pods.addEventHandler({
      onUpdate: (_b, a) => {
        const p = a as Pod;
        if (p.metadata.uid === pod!.metadata.uid) imagesSeen.add(imageOf(p));
      },
    });
    await setImage(ns, REVERT, 'nginx:1.26');
    await eventually('grace annotation for nginx:1.26', async () => {
      const [p] = await podsOf(ns, REVERT);
      return p?.metadata.annotations?.['apps.kruise.io/inplace-update-grace']?.includes('nginx:1.26');
    });
    await sleep(2_000);
    await setImage(ns, REVERT, 'nginx:1.25');
    // Past the end of the grace period the user reverted, with margin.
    await sleep(11_000);
    const settled = await waitSettled(ns, REVERT, 1, 20_000);
    expect(settled.status?.updateRevision).toBe(original);
    const [after] = await podsOf(ns, REVERT);
    expect(after!.metadata.uid).toBe(pod!.metadata.uid);
    expect(imageOf(after!)).toBe('nginx:1.25');
    expect([...imagesSeen]).toEqual(['nginx:1.25']);
    expect(after!.status?.containerStatuses?.[0]?.restartCount).toBe(restarts);
    expect(after!.metadata.annotations?.['apps.kruise.io/inplace-update-grace']).toBeUndefined();
    expect(lifecycleState(after!)).toBe('Normal');
    expect(revisionOf(after!)).toBe(original);
  });

  it('inplace-update-state records one containerBatchesRecord entry per batch of patched containers', async () => {
    const BATCH = 'batches';
    await apply(ns, cloneSetManifest(BATCH, { replicas: 1, updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: 1 } }));
    const original = (await waitSettled(ns, BATCH, 1)).status?.updateRevision ?? '';
    await setImage(ns, BATCH, 'nginx:1.26');
    await waitNewRevision(ns, BATCH, original);
    await waitSettled(ns, BATCH, 1, 30_000);
    const [p] = await podsOf(ns, BATCH);
    const state = JSON.parse(p!.metadata.annotations?.['apps.kruise.io/inplace-update-state'] ?? '{}') as { containerBatchesRecord?: { timestamp: string; containers: string[] }[] };
    expect(state.containerBatchesRecord).toEqual([{ timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), containers: ['main'] }]);
  });
});
