// Rolling update with a partition (OpenKruise's knob resolution; OpenKruise's calculateDiffsWithExpectation; OpenKruise's update), driven as a user: kubectl apply, a
// JSON patch of the image (`kubectl set image` cannot address a CRD), `kubectl edit` of
// the partition. An independent observer checks maxUnavailable on every pod event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import type {
  Observer} from './rollout-kit.ts';
import {
  apply,
  cloneSetManifest,
  getCloneSet,
  imageOf,
  kubectlEdit,
  patchCloneSet,
  podsOf,
  revisionOf,
  waitNewRevision,
  waitSettled,
  setUpRollout,
} from './rollout-kit.ts';

const NAME = 'web';

describe('rolling update with a partition (ReCreate)', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;
  let oldRevision: string;
  let newRevision: string;
  let oldUids: Set<string>;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-part'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  it('partition 3: exactly 2 pods move, never more than maxUnavailable (2) unavailable at once', async () => {
    await apply(ns, cloneSetManifest(NAME, { replicas: 5, updateStrategy: { partition: 3, maxUnavailable: 2 } }));
    const settled = await waitSettled(ns, NAME, 5);
    oldRevision = settled.status?.updateRevision ?? '';
    const before = await podsOf(ns, NAME);
    oldUids = new Set(before.map((p) => p.metadata.uid));
    expect(before.every((p) => revisionOf(p) === oldRevision)).toBe(true);

    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 2, maxPods: 5, maxMoved: 2, oldRevision });
    await kubectl(['patch', 'clone', NAME, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    newRevision = await waitNewRevision(ns, NAME, oldRevision);

    const cs = await eventually('2 updated and available, 3 left at the old revision', async () => {
      const c = await getCloneSet(ns, NAME);
      const s = c.status;
      return s?.updatedReplicas === 2 && s.updatedAvailableReplicas === 2 && s.availableReplicas === 5 ? c : undefined;
    }, { timeoutMs: 30_000 });
    // Give an over-eager controller the chance to move a third pod before judging.
    await new Promise((r) => setTimeout(r, 1_500));
    const pods = await podsOf(ns, NAME);
    expect(pods).toHaveLength(5);
    expect(pods.filter((p) => revisionOf(p) === newRevision).map(imageOf)).toEqual(['nginx:1.25', 'nginx:1.25']);
    expect(pods.filter((p) => revisionOf(p) === oldRevision)).toHaveLength(3);
    // ReCreate: the moved pods are new objects; the others are untouched.
    expect(pods.filter((p) => oldUids.has(p.metadata.uid))).toHaveLength(3);
    expect(cs.status).toMatchObject({
      replicas: 5,
      updatedReplicas: 2,
      updatedReadyReplicas: 2,
      updatedAvailableReplicas: 2,
      expectedUpdatedReplicas: 2,
      updateRevision: newRevision,
      currentRevision: oldRevision,
    });
    expect(t.violations).toEqual([]);
    // Both pods moved together: the unavailable window was observed and reached the budget.
    expect(t.maxUnavailableSeen).toBe(2);
    expect(t.maxMovedSeen).toBe(2);
    observer.untrack(NAME);
  });

  it('kubectl edit partition to 0: all pods move, within maxUnavailable; status converges', async () => {
    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 2, maxPods: 5 });
    await kubectlEdit(ns, `clone/${NAME}`, ['s/^\\(\\s*\\)partition: 3$/\\1partition: 0/']);
    expect((await getCloneSet(ns, NAME)).spec.updateStrategy?.partition).toBe(0);
    const cs = await waitSettled(ns, NAME, 5, 40_000);
    expect(cs.status).toMatchObject({
      replicas: 5,
      readyReplicas: 5,
      availableReplicas: 5,
      updatedReplicas: 5,
      updatedReadyReplicas: 5,
      updatedAvailableReplicas: 5,
      expectedUpdatedReplicas: 5,
      updateRevision: newRevision,
      currentRevision: newRevision,
    });
    const pods = await podsOf(ns, NAME);
    expect(pods.every((p) => revisionOf(p) === newRevision && imageOf(p) === 'nginx:1.25')).toBe(true);
    expect(pods.some((p) => oldUids.has(p.metadata.uid))).toBe(false);
    expect(t.violations).toEqual([]);
    expect(t.maxUnavailableSeen).toBeGreaterThanOrEqual(1);
    observer.untrack(NAME);
  });

  it('status never claimed more than possible while rolling', () => {
    expect(observer.statusViolations).toEqual([]);
    const history = observer.statuses.get(NAME) ?? [];
    // While the partition was 3 the update revision never had more than 2 pods.
    for (const s of history) {
      if (s.updateRevision === newRevision) expect(s.updatedReplicas ?? 0).toBeLessThanOrEqual(s.expectedUpdatedReplicas ?? 0);
    }
    // currentRevision stayed at the old revision until every pod was updated.
    for (const s of history) {
      if (s.currentRevision === newRevision && s.updateRevision === newRevision) expect(s.updatedReplicas).toBe(5);
    }
  });

  it('percentage partitions: "50%" of 4 keeps 2 back; "99%" still updates one pod (at least one pod is updated)', async () => {
    const PCT = 'pct';
    await apply(ns, cloneSetManifest(PCT, { replicas: 4, updateStrategy: { partition: '50%', maxUnavailable: 1 } }));
    const original = (await waitSettled(ns, PCT, 4)).status?.updateRevision ?? '';
    const t = observer.track(PCT, { replicas: 4, maxUnavailable: 1, maxPods: 4, maxMoved: 2, oldRevision: original });
    await kubectl(['patch', 'clone', PCT, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.26' }])]);
    const updated = await waitNewRevision(ns, PCT, original);
    const atRevision = async (n: number): Promise<void> => {
      await eventually(`${n} pods updated and available`, async () => {
        const s = (await getCloneSet(ns, PCT)).status;
        return s?.updatedReplicas === n && s.updatedAvailableReplicas === n && s.availableReplicas === 4 && s.expectedUpdatedReplicas === n;
      }, { timeoutMs: 30_000 });
      await new Promise((r) => setTimeout(r, 1_500));
      expect((await podsOf(ns, PCT)).filter((p) => revisionOf(p) === updated)).toHaveLength(n);
    };
    // ceil(50% x 4) = 2 pods stay at the old revision.
    await atRevision(2);
    // ceil(99% x 4) = 4 = replicas, but a percentage other than 100% still updates one pod: P = 3.
    // Raising the partition does not move pods back (no CloneSetPartitionRollback): still 2.
    await patchCloneSet(ns, PCT, { spec: { updateStrategy: { partition: '99%' } } });
    await eventually('expectedUpdatedReplicas 1', async () => (await getCloneSet(ns, PCT)).status?.expectedUpdatedReplicas === 1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await podsOf(ns, PCT)).filter((p) => revisionOf(p) === updated)).toHaveLength(2);
    expect(t.violations).toEqual([]);
    observer.untrack(PCT);

    // A fresh rollout under "99%": exactly one pod moves.
    await kubectl(['patch', 'clone', PCT, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }])]);
    const third = await waitNewRevision(ns, PCT, updated);
    const t2 = observer.track(PCT, { replicas: 4, maxUnavailable: 1, maxPods: 4 });
    await eventually('exactly one pod at the newest revision', async () => {
      const s = (await getCloneSet(ns, PCT)).status;
      return s?.updateRevision === third && s.updatedReplicas === 1 && s.updatedAvailableReplicas === 1 && s.availableReplicas === 4;
    }, { timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await podsOf(ns, PCT)).filter((p) => revisionOf(p) === third)).toHaveLength(1);
    expect(t2.violations).toEqual([]);
    observer.untrack(PCT);
  });
});

