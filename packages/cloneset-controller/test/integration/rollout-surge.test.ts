// Rolling update with maxSurge 2 and maxUnavailable 0 (OpenKruise's calculateDiffsWithExpectation): new pods are created
// first, the pod count peaks at R + 2 = 7 and comes back to 5, and no pod is ever
// unavailable below R. Checked on every pod event by an independent observer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import type { Observer} from './rollout-kit.ts';
import { apply, cloneSetManifest, getCloneSet, imageOf, kubectlEdit, podsOf, revisionOf, waitNewRevision, waitSettled, setUpRollout } from './rollout-kit.ts';

const NAME = 'surge';

describe('rolling update with maxSurge', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;
  let oldRevision: string;
  let newRevision: string;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-surge'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  it('partition 3: two surge pods at the new revision, then two old pods go; never below 5 available', async () => {
    await apply(ns, cloneSetManifest(NAME, { replicas: 5, updateStrategy: { partition: 3, maxSurge: 2, maxUnavailable: 0 } }));
    oldRevision = (await waitSettled(ns, NAME, 5)).status?.updateRevision ?? '';
    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 0, maxPods: 7, maxMoved: 2, oldRevision });
    await kubectl(['patch', 'clone', NAME, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    newRevision = await waitNewRevision(ns, NAME, oldRevision);
    const cs = await eventually('5 pods: 2 new available, 3 old', async () => {
      const c = await getCloneSet(ns, NAME);
      const s = c.status;
      return s?.replicas === 5 && s.updatedAvailableReplicas === 2 && s.availableReplicas === 5 ? c : undefined;
    }, { timeoutMs: 30_000 });
    const pods = await podsOf(ns, NAME);
    expect(pods.filter((p) => revisionOf(p) === newRevision)).toHaveLength(2);
    expect(pods.filter((p) => revisionOf(p) === oldRevision)).toHaveLength(3);
    expect(cs.status).toMatchObject({ updatedReplicas: 2, expectedUpdatedReplicas: 2, currentRevision: oldRevision, updateRevision: newRevision });
    expect(t.violations).toEqual([]);
    expect(t.maxPodsSeen).toBe(7);
    expect(t.maxUnavailableSeen).toBe(0);
    observer.untrack(NAME);
  });

  it('kubectl edit partition to 0: the count peaks at 7 again and returns to 5, all at the new revision', async () => {
    const t = observer.track(NAME, { replicas: 5, maxUnavailable: 0, maxPods: 7 });
    await kubectlEdit(ns, `clone/${NAME}`, ['s/^\\(\\s*\\)partition: 3$/\\1partition: 0/']);
    const cs = await waitSettled(ns, NAME, 5, 40_000);
    expect(cs.status).toMatchObject({ replicas: 5, updatedReplicas: 5, updatedAvailableReplicas: 5, expectedUpdatedReplicas: 5, currentRevision: newRevision });
    const pods = await podsOf(ns, NAME);
    expect(pods).toHaveLength(5);
    expect(pods.every((p) => imageOf(p) === 'nginx:1.25')).toBe(true);
    // Surge pods are not left behind once the rollout is done.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(observer.activePods(NAME)).toHaveLength(5);
    expect(t.violations).toEqual([]);
    expect(t.maxPodsSeen).toBe(7);
    expect(observer.statusViolations).toEqual([]);
    for (const s of observer.statuses.get(NAME) ?? []) expect(s.replicas ?? 0).toBeLessThanOrEqual(7);
    observer.untrack(NAME);
  });

  it('InPlaceIfPossible with maxSurge 1 and maxUnavailable 0: the surge pod is the budget, never below 4 available', async () => {
    // Surge is capped to pods that will be recreated, except with U = 0,
    // where the surge pod is the only way an in-place rollout can make progress.
    const name = 'surge-ipu';
    await apply(ns, cloneSetManifest(name, { replicas: 4, updateStrategy: { type: 'InPlaceIfPossible', maxSurge: 1, maxUnavailable: 0 } }));
    const before = (await waitSettled(ns, name, 4)).status?.updateRevision ?? '';
    const t = observer.track(name, { replicas: 4, maxUnavailable: 0, maxPods: 5 });
    await kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    await waitNewRevision(ns, name, before);
    await waitSettled(ns, name, 4, 40_000);
    await eventually('back to 4 pods', () => Promise.resolve(observer.activePods(name).length === 4));
    expect(t.violations).toEqual([]);
    expect(t.maxPodsSeen).toBe(5);
    observer.untrack(name);
  });
});
