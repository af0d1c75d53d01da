// Scenario 3: a settled workload must cost no API writes while informers resync and the
// controller re-reconciles it.
import { diffSnapshots } from '../controller-protocol.ts';
import { DEFAULT_EVENT_SERIES_FLUSH_MS } from '@cloneset-suite/kube-runtime';
import { inNamespace, sleep } from '../kube.ts';
import { controllerWrites } from '../observer.ts';
import { allReadyOn } from '../pod-goal.ts';
import type { BenchSizes, Cell, Section } from '../result.ts';
import { IMAGE_V1, cloneSet, deployment } from '../workloads.ts';
import { CONTROLLER_COMPONENTS, createWorkload, formatByKind, waitStatusSettled, withSession, type Kind } from '../workload-run.ts';

type Log = (line: string) => void;

interface SettledRun {
  row: Cell[];
  /** The controller's own count (undefined for the Deployment). */
  writes: number | undefined;
  reconciles: number | undefined;
  observed: number;
}

async function settled(kind: Kind, sizes: BenchSizes): Promise<SettledRun> {
  const n = sizes.settledReplicas;
  return inNamespace(`bench-settled-${kind.toLowerCase()}`, (ns) =>
    withSession(
      kind,
      ns,
      async (s) => {
        const spec = { name: 'app', replicas: n, image: IMAGE_V1 };
        await createWorkload(kind, ns, kind === 'CloneSet' ? cloneSet(spec) : deployment(spec));
        await s.observer.waitFor(`${n} Ready pods`, allReadyOn(n), 60_000);
        await waitStatusSettled(kind, ns, 'app', n, 30_000);
        // The scale-out's folded SuccessfulCreate Events are written as a series update up to one
        // flush interval later: a deferred write of the creation, not of the settled object.
        await sleep(kind === 'CloneSet' ? DEFAULT_EVENT_SERIES_FLUSH_MS + 2_000 : 2_000);
        const before = await s.controller?.snapshot();
        s.observer.resetCounts();
        await sleep(sizes.settledSeconds * 1000);
        const after = await s.controller?.snapshot();
        const d = before && after ? diffSnapshots(before, after) : undefined;
        const observed = controllerWrites(s.observer.writes(), CONTROLLER_COMPONENTS[kind], 0);
        const row = [
          kind,
          n,
          sizes.settledSeconds,
          kind === 'CloneSet' ? `${sizes.settledResyncMs / 1000} s` : 'kcm default (12-24 h)',
          d?.reconciles ?? 'n/a',
          d ? `${d.writes}${d.writes ? ` (${formatByKind(d.byKind)})` : ''}` : 'n/a',
          observed,
        ];
        return { row, writes: d?.writes, reconciles: d?.reconciles, observed };
      },
      { resyncMs: sizes.settledResyncMs },
    ),
  );
}

export async function settledScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  log(`settled: CloneSet for ${sizes.settledSeconds} s`);
  const cs = await settled('CloneSet', sizes);
  log(`settled: Deployment for ${sizes.settledSeconds} s`);
  const dep = await settled('Deployment', sizes);
  const notes: string[] = [];
  if (cs.writes !== 0 || cs.observed !== 0) notes.push('**The settled CloneSet caused API writes: a no-op reconcile is not a no-op.**');
  if (cs.reconciles === 0) notes.push('No reconcile ran during the window: the resync did not fire, so the zero proves less than it should.');
  return {
    title: `Settled workload: API writes during ${sizes.settledSeconds} s of resyncs (expected 0)`,
    method: [
      `A workload of ${sizes.settledReplicas} Ready pods is left alone for ${sizes.settledSeconds} s after its status settled (for the CloneSet, once its Event recorder's series flush interval of ${DEFAULT_EVENT_SERIES_FLUSH_MS / 1000} s has passed too, so the folded creation Events' series update lands before the window).`,
      `The CloneSet controller runs with an informer resync of ${sizes.settledResyncMs / 1000} s, so every cached object is re-delivered and the CloneSet is reconciled again several times;`,
      '"reconciles" is its `controller_runtime_reconcile_total` over the window, "API writes" its `rest_client_requests_total` writes, "observed writes" what a namespace watch saw the controller write.',
    ].join(' '),
    headers: ['workload', 'pods', 'window (s)', 'resync period', 'reconciles', 'API writes', 'observed writes'],
    rows: [cs.row, dep.row],
    notes,
    data: {
      settled: {
        parameters: { replicas: sizes.settledReplicas, windowSeconds: sizes.settledSeconds, resyncMs: sizes.settledResyncMs },
        writes: cs.writes,
        observedWrites: cs.observed,
        reconciles: cs.reconciles,
        deploymentObservedWrites: dep.observed,
      },
    },
  };
}
