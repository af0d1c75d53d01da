// PVC reuse rules: disablePVCReuse gives a replacement a fresh id and fresh claims and removes the
// old ones (OpenKruise's PVC handling); with reuse on, an id is reused only once no pod object holds its name
// (kruise #1099, #1433): the controller waits for a terminating pod without AlreadyExists spam,
// and says so (Event, FailedScale); a name held by a pod that is no longer ours is never waited for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { installCrds, isPodWrite, startController, withNamespace, type RunningController } from './harness.ts';
import { apply, cloneSet, countEvents, getCloneSet, idOf, isReady, listEvents, listPods, listPvcs, readyPods, sleep } from './support.ts';

const vct = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }];
const withVolume = { spec: { containers: [{ name: 'main', image: 'nginx:alpine', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] } };
const HOLD = 'test.cloneset-suite.io/hold';

describe('PVC reuse rules', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let controller: RunningController;

  beforeAll(async () => {
    await installCrds();
    ({ name: ns, remove: removeNs } = await withNamespace('cs-pvcreuse'));
    controller = startController(ns);
  });
  afterAll(async () => {
    await controller?.stop();
    // Never leave a pod stuck on the test finalizer.
    for (const p of await listPods(ns, 'app', { terminating: true }).catch(() => [])) {
      if (p.metadata.finalizers?.includes(HOLD)) await kubectl(['patch', 'pod', p.metadata.name, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']).catch(() => '');
    }
    await removeNs?.();
  });

  it('disablePVCReuse: a pod deleted from outside is replaced with a fresh id and fresh claims; old claims go', async () => {
    await apply(ns, cloneSet('fresh', 2, { volumeClaimTemplates: vct, scaleStrategy: { disablePVCReuse: true } }, withVolume));
    const pods = await readyPods(ns, 'app=fresh', 2);
    const [victim] = pods;
    const oldId = idOf(victim!);
    const claimOf = (id: string) => `data-fresh-${id}`;
    await eventually('2 claims', async () => (await listPvcs(ns)).filter((c) => c.metadata.name.startsWith('data-fresh-')).length === 2);
    await kubectl(['delete', 'pod', victim!.metadata.name, '-n', ns, '--wait=false']);
    const after = await eventually('replacement ready with a new id', async () => {
      const l = await listPods(ns, 'app=fresh');
      return l.length === 2 && l.every(isReady) && !l.some((p) => idOf(p) === oldId) ? l : undefined;
    });
    const ids = after.map(idOf).sort();
    await eventually('exactly the live pods\' claims', async () => {
      const names = (await listPvcs(ns)).filter((c) => c.metadata.name.startsWith('data-fresh-') && !c.metadata.deletionTimestamp).map((c) => c.metadata.name).sort();
      return JSON.stringify(names) === JSON.stringify(ids.map(claimOf).sort());
    });
    await eventually('old claim gone', async () => !(await listPvcs(ns)).some((c) => c.metadata.name === claimOf(oldId)));
    for (const p of after) expect(p.spec.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(claimOf(idOf(p)));
  });

  it('disablePVCReuse: the claims of a pod stuck terminating are handed to that pod and go with it', async () => {
    const [victim] = await readyPods(ns, 'app=fresh', 2);
    const claim = `data-fresh-${idOf(victim!)}`;
    await kubectl(['patch', 'pod', victim!.metadata.name, '-n', ns, '--type=merge', '-p', JSON.stringify({ metadata: { finalizers: [HOLD] } })]);
    await kubectl(['delete', 'pod', victim!.metadata.name, '-n', ns, '--wait=false']);
    // The replacement does not wait for the old name: it has a fresh id.
    await eventually('replacement ready while the victim is still terminating', async () => {
      const l = await listPods(ns, 'app=fresh');
      return l.length === 2 && l.every(isReady) && !l.some((p) => idOf(p) === idOf(victim!));
    });
    const owners = await eventually('claim owned by the terminating pod', async () => {
      const c = (await listPvcs(ns)).find((x) => x.metadata.name === claim);
      return c?.metadata.ownerReferences?.some((r) => r.kind === 'Pod') ? c.metadata.ownerReferences : undefined;
    });
    expect(owners).toEqual([expect.objectContaining({ kind: 'Pod', name: victim!.metadata.name, uid: victim!.metadata.uid })]);
    await kubectl(['patch', 'pod', victim!.metadata.name, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await eventually('claim collected with its pod', async () => !(await listPvcs(ns)).some((c) => c.metadata.name === claim), { timeoutMs: 60_000 });
  });

  it('reuse on: waits for a terminating pod holding the name, without AlreadyExists, then reuses id and claim', async () => {
    await apply(ns, cloneSet('held', 2, { volumeClaimTemplates: vct }, withVolume));
    const [victim] = await readyPods(ns, 'app=held', 2);
    const name = victim!.metadata.name;
    const claim = `data-held-${idOf(victim!)}`;
    const claimUid = (await listPvcs(ns)).find((c) => c.metadata.name === claim)?.metadata.uid;
    expect(claimUid).toBeDefined();
    await kubectl(['patch', 'pod', name, '-n', ns, '--type=merge', '-p', JSON.stringify({ metadata: { finalizers: [HOLD] } })]);
    const requestsBefore = controller.requests().length;
    await kubectl(['delete', 'pod', name, '-n', ns, '--wait=false']);
    await eventually('victim terminating', async () => (await listPods(ns, 'app=held', { terminating: true })).some((p) => p.metadata.name === name && p.metadata.deletionTimestamp));
    await sleep(3_000);
    // The controller waited: no create of that name (no 409), no other pod instead, no FailedCreate.
    const creates = controller.requests().slice(requestsBefore).filter((r) => isPodWrite(r) && r.method === 'POST');
    expect(creates).toEqual([]);
    expect(await countEvents(ns, 'FailedCreate')).toBe(0);
    expect(await listPods(ns, 'app=held')).toHaveLength(1);
    // The wait is visible where users look: an Event and the FailedScale condition name the pod.
    const waitEvents = await listEvents(ns, 'WaitingForPodDeletion');
    expect(waitEvents.map((e) => e.message ?? e.note)).toContainEqual(expect.stringContaining(name));
    const failedScale = (await getCloneSet(ns, 'held'))?.status?.conditions?.find((c) => c.type === 'FailedScale');
    expect(failedScale).toMatchObject({ status: 'True', message: expect.stringContaining(name) });
    await kubectl(['patch', 'pod', name, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    const replacement = await eventually('replacement with the same name', async () => {
      const p = (await listPods(ns, 'app=held')).find((x) => x.metadata.name === name && x.metadata.uid !== victim!.metadata.uid);
      return p && isReady(p) ? p : undefined;
    });
    expect(idOf(replacement)).toBe(idOf(victim!));
    expect((await listPvcs(ns)).find((c) => c.metadata.name === claim)?.metadata.uid).toBe(claimUid);
    const conflicts = controller.requests().slice(requestsBefore).filter((r) => isPodWrite(r) && r.method === 'POST' && r.status === 409);
    expect(conflicts).toEqual([]);
    expect(await countEvents(ns, 'FailedCreate')).toBe(0);
    await eventually('FailedScale cleared once the wait is over', async () =>
      (await getCloneSet(ns, 'held'))?.status?.conditions?.find((c) => c.type === 'FailedScale')?.status === 'False');
  });

  it('a released pod (relabelled out of the selector) is never waited for: its replacement gets a new id and new claims', async () => {
    await apply(ns, cloneSet('rel', 2, { volumeClaimTemplates: vct }, withVolume));
    const [victim, kept] = await readyPods(ns, 'app=rel', 2);
    const releasedId = idOf(victim!);
    await kubectl(['label', 'pod', victim!.metadata.name, '-n', ns, 'app=other', '--overwrite']);
    const replaced = await eventually('2 pods again, the replacement with a fresh id', async () => {
      const l = await listPods(ns, 'app=rel');
      return l.length === 2 && l.every(isReady) && !l.some((p) => idOf(p) === releasedId) ? l : undefined;
    }, { timeoutMs: 30_000 });
    const fresh = replaced.find((p) => p.metadata.uid !== kept!.metadata.uid)!;
    expect(fresh.metadata.name).not.toBe(victim!.metadata.name);
    expect(fresh.spec.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName).toBe(`data-rel-${idOf(fresh)}`);
    expect((await listPvcs(ns)).map((c) => c.metadata.name)).toContain(`data-rel-${idOf(fresh)}`);
    // The released pod keeps running, no longer ours.
    const released = (await listPods(ns, 'app=other')).find((p) => p.metadata.uid === victim!.metadata.uid);
    expect(released?.metadata.ownerReferences ?? []).not.toContainEqual(expect.objectContaining({ kind: 'CloneSet' }));
    const cs = await eventually('status.replicas 2', async () => {
      const c = await getCloneSet(ns, 'rel');
      return c?.status?.replicas === 2 ? c : undefined;
    });
    expect(cs.status?.conditions?.find((c) => c.type === 'FailedScale' && c.status === 'True')).toBeUndefined();
  });
});
