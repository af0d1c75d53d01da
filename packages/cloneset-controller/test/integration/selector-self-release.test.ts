// Defence in depth, on the cluster: a CloneSet whose selector excludes a label
// the controller adds (here pod-template-hash DoesNotExist, a plausible way to leave a
// Deployment's pods alone) reaches the controller when admission is not in the way (this suite
// installs only the CRDs). It creates no pod, sets FailedScale naming the selector and records a
// Warning, instead of creating and releasing pods without end.
import { describe, expect, it } from 'vitest';
import { eventually } from '@cloneset-suite/local-cluster';
import { controllerInNamespace, isPodWrite, type RunningController } from './harness.ts';
import { apply, cloneSet, countEvents, getCloneSet, listPods, sleep } from './support.ts';

describe('a selector that would release every pod the CloneSet creates', () => {
  let ns: string;
  let controller: RunningController;

  controllerInNamespace('cs-selfrelease', (s) => ({ ns, controller } = s));

  it('creates nothing, and says why on FailedScale and with a Warning', async () => {
    const manifest = cloneSet('web', 3) as { spec: { selector: Record<string, unknown> } };
    manifest.spec.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'DoesNotExist' }] };
    await apply(ns, manifest);
    const failed = await eventually(
      'FailedScale True',
      async () => (await getCloneSet(ns, 'web'))?.status?.conditions?.find((c) => c.type === 'FailedScale' && c.status === 'True'),
      { timeoutMs: 30_000 },
    );
    expect(failed.message).toMatch(/spec\.selector \(app=web,!pod-template-hash\) does not match pod web-/);
    await eventually('the Warning Event', async () => (await countEvents(ns, 'SelectorExcludesCreatedPods')) > 0, { timeoutMs: 30_000 });
    // A few more seconds of passes (status writes requeue them): still no pod, no pod write at all.
    await sleep(3_000);
    expect(controller.requests().filter(isPodWrite)).toEqual([]);
    expect(await listPods(ns, 'app=web', { terminating: true })).toEqual([]);
  });

  it('creates the pods once the selector no longer excludes them (a new CloneSet, the selector is immutable)', async () => {
    await apply(ns, cloneSet('fixed', 2));
    await eventually('2 pods', async () => ((await listPods(ns, 'app=fixed')).length === 2 ? true : undefined), { timeoutMs: 60_000 });
  });
});
