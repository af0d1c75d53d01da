// Status during rollouts (OpenKruise's CloneSet status; OpenKruise's conditions): minReadySeconds delays availability (and so
// the next batch), progressDeadlineSeconds drives the Progressing condition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import type { Observer} from './rollout-kit.ts';
import { apply, cloneSetManifest, condition, getCloneSet, waitNewRevision, waitSettled, type CloneSet, setUpRollout } from './rollout-kit.ts';

const progressing = (cs: CloneSet) => cs.status?.conditions?.find((c) => c.type === 'Progressing');

describe('rollout status', () => {
  let ns: string;
  let tearDown: () => Promise<void>;
  let observer: Observer;

  beforeAll(async () => {
    ({ ns, observer, tearDown } = await setUpRollout('cs-roll-status'));
  });
  afterAll(async () => {
    await tearDown?.();
  });

  it('minReadySeconds: a ready pod counts as available only 2s later, and the next pod waits for it', async () => {
    const name = 'minready';
    await apply(ns, cloneSetManifest(name, { replicas: 3, minReadySeconds: 2, sim: { 'sim.cloneset-suite.io/ready-delay': '300ms' }, updateStrategy: { maxUnavailable: 1 } }));
    const oldRevision = (await waitSettled(ns, name, 3)).status?.updateRevision ?? '';
    const since = observer.moves.length;
    const sinceStatus = observer.statuses.get(name)?.length ?? 0;
    await kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.25' }])]);
    const newRevision = await waitNewRevision(ns, name, oldRevision);
    await waitSettled(ns, name, 3, 40_000);
    const history = (observer.statuses.get(name) ?? []).slice(sinceStatus).filter((s) => s.updateRevision === newRevision);
    // Seen: updated pods that are ready but not yet available.
    expect(history.some((s) => (s.updatedReadyReplicas ?? 0) > (s.updatedAvailableReplicas ?? 0))).toBe(true);
    expect(history.some((s) => (s.readyReplicas ?? 0) > (s.availableReplicas ?? 0))).toBe(true);
    // ReCreate one at a time: each replacement is created only after the previous one had
    // been Ready for minReadySeconds, as its Ready lastTransitionTime records it (whole
    // seconds, as the kubelet writes it: so the real gap may be up to 1 s shorter).
    const created = observer.moves.slice(since).filter((m) => m.revision === newRevision);
    expect(created).toHaveLength(3);
    const pods = observer.activePods(name);
    for (let i = 1; i < created.length; i++) {
      const previous = pods.find((p) => p.metadata.uid === created[i - 1]!.uid);
      const readySince = Date.parse(condition(previous!, 'Ready')?.lastTransitionTime ?? '');
      expect(created[i]!.at).toBeGreaterThan(readySince + 2_000);
      expect(created[i]!.at - created[i - 1]!.at).toBeGreaterThanOrEqual(1_000);
    }
    expect(observer.statusViolations).toEqual([]);
  });

  it('progressDeadlineSeconds: Progressing goes False/ProgressDeadlineExceeded when a rollout stalls, True/CloneSetAvailable once it completes', async () => {
    const name = 'deadline';
    await apply(ns, cloneSetManifest(name, { replicas: 2, progressDeadlineSeconds: 3, sim: { 'sim.cloneset-suite.io/ready-delay': '300ms' }, updateStrategy: { maxUnavailable: 1 } }));
    const good = await waitSettled(ns, name, 2);
    expect(progressing(good)).toMatchObject({ status: 'True', reason: 'CloneSetAvailable' });
    const goodRevision = good.status?.updateRevision ?? '';

    // A template whose pods never become ready: the rollout stalls after the first pod.
    const annotation = '/spec/template/metadata/annotations/sim.cloneset-suite.io~1never-ready';
    await kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'add', path: annotation, value: 'true' }])]);
    await waitNewRevision(ns, name, goodRevision);
    await eventually('Progressing True/CloneSetUpdated while rolling', async () => progressing(await getCloneSet(ns, name))?.reason === 'CloneSetUpdated', { intervalMs: 100 });
    const stalled = await eventually('Progressing False/ProgressDeadlineExceeded', async () => {
      const cs = await getCloneSet(ns, name);
      return progressing(cs)?.status === 'False' ? cs : undefined;
    }, { timeoutMs: 15_000 });
    expect(progressing(stalled)).toMatchObject({ reason: 'ProgressDeadlineExceeded', message: expect.stringContaining('has timed out progressing') });
    expect(stalled.status?.updatedAvailableReplicas).toBe(0);

    // Fixing the template (back to the good revision) completes the rollout.
    await kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'remove', path: annotation }])]);
    const fixed = await waitSettled(ns, name, 2, 30_000);
    expect(fixed.status?.updateRevision).toBe(goodRevision);
    expect(progressing(fixed)).toMatchObject({ status: 'True', reason: 'CloneSetAvailable' });
  });
});
