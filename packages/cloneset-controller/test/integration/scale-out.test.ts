// Scale-out details (OpenKruise's scale-out): scaleStrategy.maxUnavailable with minReadySeconds creates the next pod
// only once the previous one has been available long enough (ScaleUpLimited meanwhile); creations go
// in slow-start batches 1, 2, 4... and stop at the first failed batch (a ResourceQuota makes them
// fail), with FailedCreate events and a FailedScale condition that is cleared once the quota is
// lifted (failure conditions are cleared on the next successful pass).
import { describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { controllerInNamespace, isPodWrite, type RecordedRequest, type RunningController } from './harness.ts';
import { apply, cloneSet, countEvents, getCloneSet, listEvents, readyPods, sleep } from './support.ts';

const podCreates = (c: RunningController): RecordedRequest[] =>
  c.requests().filter((r) => isPodWrite(r) && r.method === 'POST').sort((a, b) => a.startMs - b.startMs);

/** Groups requests into batches of transitively overlapping (concurrent) requests. */
function concurrentBatches(reqs: readonly RecordedRequest[]): RecordedRequest[][] {
  const out: RecordedRequest[][] = [];
  let end = -Infinity;
  for (const r of reqs) {
    const last = out.at(-1);
    if (last && r.startMs < end) {
      last.push(r);
      end = Math.max(end, r.atMs);
    } else {
      out.push([r]);
      end = r.atMs;
    }
  }
  return out;
}

describe('scale-out with scaleStrategy.maxUnavailable and minReadySeconds', () => {
  let ns: string;
  let controller: RunningController;

  controllerInNamespace('cs-scaleout', (s) => ({ ns, controller } = s));

  it('creates one pod at a time, each once the previous one is available, with ScaleUpLimited', async () => {
    const minReadySeconds = 2;
    await apply(ns, cloneSet('limited', 3, { minReadySeconds, scaleStrategy: { maxUnavailable: 1 } }));
    const pods = (await readyPods(ns, 'app=limited', 3)).sort((x, y) => Date.parse(x.metadata.creationTimestamp) - Date.parse(y.metadata.creationTimestamp));
    await eventually('3 available', async () => (await getCloneSet(ns, 'limited'))?.status?.availableReplicas === 3, { timeoutMs: 20_000 });
    const creates = podCreates(controller);
    expect(creates.map((r) => r.status)).toEqual([201, 201, 201]);
    for (let i = 1; i < creates.length; i++) {
      // The previous pod's Ready time, as the controller sees it (whole seconds): the next
      // create comes only once minReadySeconds have passed since, and not much later.
      const readySince = Date.parse(pods[i - 1]!.status.conditions!.find((c) => c.type === 'Ready')!.lastTransitionTime!);
      const wait = creates[i]!.startMs - readySince;
      expect(wait).toBeGreaterThanOrEqual(minReadySeconds * 1000);
      // (+1 s: the Ready time is truncated to seconds; +1 s: the requeue is rounded up to seconds.)
      expect(wait).toBeLessThan(minReadySeconds * 1000 + 3_500);
      // And the pods really were created one after another, seconds apart.
      expect(creates[i]!.startMs - creates[i - 1]!.atMs).toBeGreaterThan((minReadySeconds - 1) * 1000);
    }
    const limited = await listEvents(ns, 'ScaleUpLimited');
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]).toMatchObject({ type: 'Warning' });
    expect(limited.map((e) => e.message ?? e.note)).toContain('scaleUp is limited because of scaleStrategy.maxUnavailable, limit: 0');
  });
});

describe('scale-out slow start under a ResourceQuota', () => {
  let ns: string;
  let controller: RunningController;

  // The quota admission plugin needs the quota's status before it enforces it.
  const quotaOfThreePods = async (namespace: string): Promise<void> => {
    await apply(namespace, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '3' } } });
    await eventually('quota status', async () => {
      const q = JSON.parse(await kubectl(['get', 'resourcequota', 'pods', '-n', namespace, '-o', 'json'])) as { status?: { hard?: Record<string, string> } };
      return q.status?.hard?.pods === '3';
    });
  };
  controllerInNamespace('cs-quota', (s) => ({ ns, controller } = s), { prepare: quotaOfThreePods });

  it('creates in batches 1, 2, 4 and stops at the first failed batch; FailedCreate and FailedScale', async () => {
    await apply(ns, cloneSet('quota', 8));
    const cs = await eventually('FailedScale True', async () => {
      const c = await getCloneSet(ns, 'quota');
      return c?.status?.conditions?.some((x) => x.type === 'FailedScale' && x.status === 'True') ? c : undefined;
    });
    expect(cs.status?.conditions?.find((x) => x.type === 'FailedScale')?.message).toMatch(/forbidden|exceeded quota/i);
    await readyPods(ns, 'app=quota', 3);
    // The status catches up with those pods first (legitimate writes), then only retries remain.
    // (They stay PreparingNormal, so not available, while every pass fails in the Scale step.)
    await eventually('status counts the 3 ready pods', async () => (await getCloneSet(ns, 'quota'))?.status?.readyReplicas === 3);
    // Let a few retries (each a pass with rate-limited backoff) happen. The condition is not
    // rewritten by each retry: a status write would re-enqueue the CloneSet at once (hot loop).
    const statusWrites = () => controller.requests().filter((r) => r.path.endsWith('/clonesets/quota/status')).length;
    const writesBefore = statusWrites();
    const createsBefore = podCreates(controller).length;
    await sleep(2_500);
    expect(statusWrites() - writesBefore).toBeLessThanOrEqual(1);
    expect(podCreates(controller).length - createsBefore).toBeLessThan(12);
    const batches = concurrentBatches(podCreates(controller));
    const sizes = batches.map((b) => b.length);
    // First pass: 1 and 2 succeed (3 = the quota), the batch of 4 all fail, the 8th pod is not tried.
    expect(sizes.slice(0, 3)).toEqual([1, 2, 4]);
    expect(batches[0]!.map((r) => r.status)).toEqual([201]);
    expect(batches[1]!.map((r) => r.status)).toEqual([201, 201]);
    expect(batches[2]!.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    // Every later pass tries one pod, fails, and stops there.
    expect(sizes.length).toBeGreaterThan(3);
    for (const b of batches.slice(3)) expect(b.map((r) => r.status)).toEqual([403]);
    expect(await countEvents(ns, 'FailedCreate')).toBeGreaterThanOrEqual(4);
    expect((await listEvents(ns, 'FailedCreate'))[0]).toMatchObject({ type: 'Warning' });
  });

  it('creates the rest once the quota is lifted and clears FailedScale (status False)', async () => {
    const before = podCreates(controller).length;
    await kubectl(['delete', 'resourcequota', 'pods', '-n', ns]);
    // Quota changes are not watched: a CloneSet event starts the next pass at once.
    await kubectl(['annotate', 'clone', 'quota', '-n', ns, `poke=${Date.now()}`, '--overwrite']);
    await readyPods(ns, 'app=quota', 8);
    const cs = await eventually('FailedScale False', async () => {
      const c = await getCloneSet(ns, 'quota');
      return c?.status?.conditions?.some((x) => x.type === 'FailedScale' && x.status === 'False') ? c : undefined;
    });
    expect(cs.status).toMatchObject({ replicas: 8 });
    const after = concurrentBatches(podCreates(controller).slice(before));
    // Possibly a last failing retry raced the quota deletion; then 5 pods in batches 1, 2, 2.
    const ok = after.filter((b) => b.every((r) => r.status === 201)).map((b) => b.length);
    expect(ok).toEqual([1, 2, 2]);
  });
});
