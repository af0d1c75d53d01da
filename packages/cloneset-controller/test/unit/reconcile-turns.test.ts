// The reconciler runs a pass's planning stages with runInTurns (package README, "Planning cost"):
// once a pass has planned for COMPUTE_MS_PER_TURN, it gives the event loop a turn at the next
// stage boundary, so a Lease renewal or a watch event is not held behind a 10,000-pod plan. Here
// performance.now is made to advance past that threshold between any two readings, and the turns
// the event loop gets during one settled pass are counted against a pass whose clock stands still.
import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import { type KubeObject } from '@cloneset-suite/kube-runtime';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { planReconcileStages } from '../../src/core/reconcile-plan.ts';
import type { CloneSetLike } from '../../src/core/types.ts';
import type { CloneSetCaches } from '../../src/reconciler/caches.ts';
import { fakeApi } from './fake-api.ts';
import { listCache, passContext, reconcilerOverLists } from './list-cache.ts';
import { CS_UID, NOW, cloneSet, seededRandom, settledPods } from './fixtures.ts';

/** A settled CloneSet of `n` pods: the pass plans no write. */
function settledCaches(n: number): CloneSetCaches {
  const { pods, revisions } = settledPods(n);
  const owned = revisions.map((r) => ({ ...r, metadata: { ...r.metadata, namespace: 'ns', ownerReferences: pods[0]?.metadata?.ownerReferences } }));
  return {
    cloneSets: listCache([cloneSet({ replicas: n }) as KubeObject]),
    pods: listCache(pods as KubeObject[]),
    pvcs: listCache([]),
    revisions: listCache(owned as KubeObject[]),
    nodes: listCache([]),
  } as unknown as CloneSetCaches;
}

/** How many times the settled pass's planning yields: what runInTurns can turn a turn at. */
function stageBoundaries(caches: CloneSetCaches): number {
  const cs = caches.cloneSets.getByKey('ns/cs') as unknown as CloneSetLike;
  const stages = planReconcileStages({
    cs,
    pods: caches.pods.byIndex('ownerUID', CS_UID) as unknown as V1Pod[],
    pvcs: [],
    revisions: caches.revisions.byIndex('ownerUID', CS_UID) as unknown as V1ControllerRevision[],
    gates: {},
    nowMs: NOW,
    random: seededRandom(2),
    revisionNameTaken: () => false,
    imagePullJobCrdPresent: false,
  });
  let yields = 0;
  while (!stages.next().done) yields++;
  return yields;
}

/** Runs one pass and counts the event-loop turns (check phases) that ran while it was in flight. */
async function turnsDuringOnePass(caches: CloneSetCaches): Promise<number> {
  const api = fakeApi();
  const { reconcile } = reconcilerOverLists({ caches, client: api.client, recorder: api.recorder, random: seededRandom(2) });
  const ctx = passContext('ns/cs');
  let turns = 0;
  let passing = true;
  const count = (): void => {
    if (!passing) return;
    turns++;
    setImmediate(count);
  };
  setImmediate(count);
  await reconcile(caches.cloneSets.getByKey('ns/cs')!, ctx);
  passing = false;
  return turns;
}

describe('the reconciler plans a pass in turns', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('gives the event loop a turn between planning stages once a pass has planned for 10 ms, and not before', async () => {
    const caches = settledCaches(20);
    vi.spyOn(performance, 'now').mockReturnValue(1_000);
    const still = await turnsDuringOnePass(caches);
    let t = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => (t += 11));
    const slow = await turnsDuringOnePass(caches);
    // Every stage boundary is reached past the threshold, so each gives the loop a turn.
    expect(stageBoundaries(caches)).toBeGreaterThanOrEqual(4);
    expect(slow - still).toBe(stageBoundaries(caches));
  });
});
