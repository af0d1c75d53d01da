// Scenario 1: scale-out 0→N, CloneSet vs Deployment with the same pod template.
import { SHIPPED_DEFAULTS, UNTHROTTLED } from '../controller-process.ts';
import { inNamespace } from '../kube.ts';
import { allCreated, allReadyOn, allScheduled } from '../pods.ts';
import { fixed, seconds, type BenchSizes, type Cell, type Section } from '../result.ts';
import { podReadyLowerBoundMs } from '../stats.ts';
import { IMAGE_V1, POD_DELAYS, cloneSet, deployment } from '../workloads.ts';
import { createWorkload, formatByKind, timed, withSession, type Kind, type TimedRun } from '../workload-run.ts';

type Log = (line: string) => void;

async function scaleOut(kind: Kind, n: number, qps: { qps: number; burst: number }): Promise<TimedRun> {
  return inNamespace(`bench-scale-${kind.toLowerCase()}`, (ns) =>
    withSession(
      kind,
      ns,
      (s) => {
        const spec = { name: 'app', replicas: n, image: IMAGE_V1 };
        const manifest = kind === 'CloneSet' ? cloneSet(spec) : deployment(spec);
        return timed(s, 'app', n, 1, () => createWorkload(kind, ns, manifest), (pods) => allReadyOn(pods, n), 60_000 + n * 500, {
          created: (pods) => allCreated(pods, n),
          scheduled: (pods) => allScheduled(pods, n),
        });
      },
      qps,
    ),
  );
}

function milestone(r: TimedRun, what: string): string {
  const ms = r.milestonesMs[what];
  return ms !== undefined && Number.isFinite(ms) ? seconds(ms) : 'n/a';
}

function row(kind: string, client: string, n: number, r: TimedRun): Cell[] {
  const writes = r.controller?.writes;
  return [
    kind,
    client,
    n,
    milestone(r, 'created'),
    milestone(r, 'scheduled'),
    seconds(r.ms),
    seconds(podReadyLowerBoundMs(POD_DELAYS)),
    writes ?? 'n/a',
    writes === undefined ? 'n/a' : fixed(writes / n),
    fixed(r.observedControllerWrites / n),
    r.controller ? formatByKind(r.controller.byKind) : `pods created ${r.observed.podCreates}, workload writes ${r.observed.workloadWrites - 1}, events ${JSON.stringify(r.observed.eventsByComponent)}`,
  ];
}

export async function scaleOutScenario(sizes: BenchSizes, log: Log): Promise<Section> {
  const rows: Cell[][] = [];
  const largest = Math.max(...sizes.scaleOut);
  for (const n of sizes.scaleOut) {
    log(`scale-out ${n}: CloneSet`);
    rows.push(row('CloneSet', 'qps 5000 / burst 10000', n, await scaleOut('CloneSet', n, UNTHROTTLED)));
    log(`scale-out ${n}: Deployment`);
    rows.push(row('Deployment', 'kcm: qps 5000 / burst 10000', n, await scaleOut('Deployment', n, UNTHROTTLED)));
  }
  log(`scale-out ${largest}: CloneSet with the shipped client limits`);
  rows.push(row('CloneSet', 'qps 50 / burst 100 (shipped default)', largest, await scaleOut('CloneSet', largest, SHIPPED_DEFAULTS)));
  return {
    title: 'Scale-out 0→N',
    method: [
      'A CloneSet and a Deployment with the same pod template are created with `replicas: N` in fresh namespaces, one at a time.',
      'Time: from the create request until a watcher in the bench process sees N live pods, all Ready; "all created" and "all scheduled" are when the same watcher first saw N pods, and N pods bound to nodes (what is left after "all scheduled" is the simulated kubelet\'s and the readiness writes\' share).',
      `Lower bound: one pod's simulated start + ready delay (${POD_DELAYS.startMs} + ${POD_DELAYS.readyMs} ms), as if every pod were created and scheduled at once.`,
      'The CloneSet controller runs in its own Node process (like the kube-controller-manager it is compared with), with client limits matching that kube-controller-manager (`--kube-api-qps=5000 --kube-api-burst=10000`, set by kwokctl) unless the row says otherwise.',
      '"API writes": POST/PUT/PATCH/DELETE counted by the CloneSet controller\'s own `rest_client_requests_total`, until its status settled. "Observed writes/pod": what a namespace watch sees the controller under test write (pods created or deleted, workload objects and ControllerRevisions created or changed, its Events created or updated), the same way for both; the kube-controller-manager\'s own metrics also count other tenants\' work, so they are not used.',
    ].join(' '),
    headers: ['workload', 'client limits', 'N', 'all created (s)', 'all scheduled (s)', 'time to all Ready (s)', 'lower bound (s)', 'API writes', 'API writes / pod', 'observed writes / pod', 'writes by kind'],
    rows,
    notes: [
      'Per pod the CloneSet controller makes, by its specification (OpenKruise behaviour): the create, a /status patch setting its readiness-gate condition, a label patch moving it from PreparingNormal to Normal once scheduled, and one SuccessfulCreate Event; plus a few CloneSet /status patches and one ControllerRevision per workload. The ReplicaSet controller makes the create only, and its Event recorder aggregates similar Events. Pod patches cannot be attributed to a writer from a namespace watch (the simulated kubelet writes pods too), so "observed writes" leaves them out for both controllers.',
    ],
  };
}
