// preDelete lifecycle hook (OpenKruise's scale step; OpenKruise's PreparingDelete exclusion; OpenKruise's lifecycle state machine): a pod chosen for deletion while hooked goes to
// PreparingDelete and waits; the user's controller (this test) releases it by removing the
// finalizer or label, then the CloneSet deletes it. markPodNotReady turns KruisePodReady False;
// a scale-up cancels PreparingDelete; the exclude-preparing-delete label lets a replacement in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kubectl } from '@cloneset-suite/local-cluster';
import { installCrds, startController, withNamespace, type RunningController } from './harness.ts';
import { LIFECYCLE_STATE, apply, cloneSet, condition, getCloneSet, isReady, listEvents, listPods, readyPods, scale, sleep, type Pod } from './support.ts';

const FINALIZER = 'example.com/pre-delete';
const HOOK_LABEL = 'example.com/block';
const EXCLUDE = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';

const state = (p: Pod): string => p.metadata.labels?.[LIFECYCLE_STATE] ?? '';

describe('preDelete lifecycle hook', () => {
  let ns: string;
  let removeNs: () => Promise<void>;
  let controller: RunningController;

  const preparing = (app: string): Promise<Pod> =>
    eventually(`a ${app} pod in PreparingDelete`, async () => {
      const l = (await listPods(ns, `app=${app}`)).filter((p) => state(p) === 'PreparingDelete');
      return l.length === 1 ? l[0] : undefined;
    });
  const uids = async (app: string): Promise<string[]> => (await listPods(ns, `app=${app}`)).map((p) => p.metadata.uid).sort();

  beforeAll(async () => {
    await installCrds();
    ({ name: ns, remove: removeNs } = await withNamespace('cs-lifecycle'));
    controller = startController(ns);
    await apply(ns, cloneSet('fin', 3, { lifecycle: { preDelete: { finalizersHandler: [FINALIZER], markPodNotReady: true } } }, { finalizers: [FINALIZER] }));
    await apply(ns, cloneSet('lbl', 3, { lifecycle: { preDelete: { labelsHandler: { [HOOK_LABEL]: 'true' } } } }, { labels: { [HOOK_LABEL]: 'true' } }));
    await readyPods(ns, 'app=fin', 3);
    await readyPods(ns, 'app=lbl', 3);
  });
  afterAll(async () => {
    await controller?.stop();
    for (const p of await listPods(ns, 'app=fin', { terminating: true }).catch(() => [])) {
      await kubectl(['patch', 'pod', p.metadata.name, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']).catch(() => '');
    }
    await removeNs?.();
  });

  it('finalizersHandler + markPodNotReady: scale-in holds the pod in PreparingDelete, not ready and not cancelled, until the finalizer goes', async () => {
    await scale(ns, 'fin', 2);
    const held = await preparing('fin');
    const kruiseReady = await eventually('KruisePodReady False', async () => {
      const p = (await listPods(ns, 'app=fin')).find((x) => x.metadata.uid === held.metadata.uid);
      const c = p && condition(p, 'KruisePodReady');
      return c?.status === 'False' && p && !isReady(p) ? c : undefined;
    });
    expect(JSON.parse(kruiseReady.message ?? '[]')).toEqual([{ userAgent: 'Lifecycle', key: 'preDeleteHook' }]);
    await sleep(2_000);
    expect(await listPods(ns, 'app=fin')).toHaveLength(3);
    expect((await getCloneSet(ns, 'fin'))?.status?.replicas).toBe(3);
    // With markPodNotReady, scaling back up does not cancel PreparingDelete (OpenKruise's scale step).
    await scale(ns, 'fin', 3);
    await sleep(1_500);
    const still = await listPods(ns, 'app=fin');
    expect(still).toHaveLength(3);
    expect(state(still.find((p) => p.metadata.uid === held.metadata.uid)!)).toBe('PreparingDelete');
    // The user's controller is done: it removes its finalizer; the CloneSet deletes the pod
    // and, replicas being 3 again, replaces it.
    await kubectl(['patch', 'pod', held.metadata.name, '-n', ns, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await eventually('held pod gone', async () => !(await listPods(ns, 'app=fin', { terminating: true })).some((p) => p.metadata.uid === held.metadata.uid));
    await readyPods(ns, 'app=fin', 3);
    expect((await listEvents(ns, 'SuccessfulDelete')).map((x) => x.message ?? x.note)).toContain(`succeed to delete pod ${held.metadata.name}`);
  });

  it('labelsHandler: scaling back up cancels PreparingDelete (back to Normal, no pod created)', async () => {
    const before = await uids('lbl');
    await scale(ns, 'lbl', 2);
    const held = await preparing('lbl');
    // No markPodNotReady: the pod stays Ready.
    expect(isReady(held)).toBe(true);
    await scale(ns, 'lbl', 3);
    await eventually('back to Normal', async () => {
      const p = (await listPods(ns, 'app=lbl')).find((x) => x.metadata.uid === held.metadata.uid);
      return p && state(p) === 'Normal';
    });
    await sleep(1_000);
    expect(await uids('lbl')).toEqual(before);
  });

  it('labelsHandler: removing the label releases the pod, which is then deleted', async () => {
    await scale(ns, 'lbl', 2);
    const held = await preparing('lbl');
    await sleep(1_000);
    expect(await listPods(ns, 'app=lbl')).toHaveLength(3);
    await kubectl(['label', 'pod', held.metadata.name, '-n', ns, `${HOOK_LABEL}-`]);
    await eventually('held pod gone', async () => !(await uids('lbl')).includes(held.metadata.uid));
    await readyPods(ns, 'app=lbl', 2);
    await scale(ns, 'lbl', 3);
    await readyPods(ns, 'app=lbl', 3);
  });

  it('specified delete: no replacement while held by default; one at once with the exclude-preparing-delete label', async () => {
    const [victim] = await listPods(ns, 'app=lbl');
    await kubectl(['label', 'pod', victim!.metadata.name, '-n', ns, 'apps.kruise.io/specified-delete=true']);
    const held = await preparing('lbl');
    expect(held.metadata.uid).toBe(victim!.metadata.uid);
    await sleep(2_000);
    expect(await listPods(ns, 'app=lbl')).toHaveLength(3);
    expect((await getCloneSet(ns, 'lbl'))?.status?.replicas).toBe(3);
    await kubectl(['label', 'clone', 'lbl', '-n', ns, `${EXCLUDE}=true`]);
    await eventually('a replacement next to the held pod', async () => {
      const l = await listPods(ns, 'app=lbl');
      return l.length === 4 && l.some((p) => p.metadata.uid === held.metadata.uid) && l.filter(isReady).length === 4;
    });
    await eventually('status counts the held pod too', async () => (await getCloneSet(ns, 'lbl'))?.status?.replicas === 4);
    await kubectl(['label', 'pod', held.metadata.name, '-n', ns, `${HOOK_LABEL}-`]);
    await eventually('held pod deleted, 3 left', async () => {
      const l = await listPods(ns, 'app=lbl');
      return l.length === 3 && !l.some((p) => p.metadata.uid === held.metadata.uid);
    });
  });
});
