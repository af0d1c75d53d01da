// How long a bench run should take, printed before it starts (so a full run that will not fit a
// quiet window is not started) and next to the actual duration at the end (so the model can be
// corrected). Seconds per unit fitted on 2 shared CPUs; namespace creation and deletion included.
// Refitted on the full run of 5ee7f4e (1,190 s where the old constants estimated 1,958 s: the
// simulated kubelet no longer replays and re-times stages, and the memory section ran quiet).
import { DEFAULT_EVENT_SERIES_FLUSH_MS } from '@cloneset-suite/kube-runtime';
import type { BenchSizes } from './result.ts';

const SCALE_OUT_FIXED_S = 12;
const SCALE_OUT_PER_POD_S = 0.03;
/** The shipped client limits (qps 50) pace about 3 writes per pod. */
const SHIPPED_PER_POD_S = 3 / 50;
const LEASE_ACQUIRE_S = 3;
const ROLLOUT_FIXED_S = 12;
const ROLLOUT_PER_POD_S = 0.07;
const SETTLED_SETUP_S = 20;
const MEMORY_FIXED_S = 20;
const MEMORY_PER_SIZE_S = 15;
// Pods are created straight through the API; most of the time is the simulated kubelet making
// them Ready (10,000: 1,100 s under a 1-minute load of 14-24, about 200 s when quiet).
const MEMORY_PER_POD_S = 0.02;
const WEBHOOK_FIXED_S = 15;
// scale-large, per pod of its CloneSet: at the shipped limits about 12 writes per pod at 50/s over
// the scale-out and both rollouts; unthrottled and the Deployment's two phases bound by the CPUs;
// three namespaces of N pods to delete. scale-large-shipped: the shipped-limit run and its namespace.
const LARGE_SHIPPED_PER_POD_S = 12 / 50;
const LARGE_UNTHROTTLED_PER_POD_S = 0.13;
const LARGE_DEPLOYMENT_PER_POD_S = 0.05;
const LARGE_DELETE_PER_POD_S = 0.02;
const LARGE_FIXED_S = 120;
// manager-large, per pod under the manager: created and made Ready straight through the API, listed
// by the memory child three times and by two controller children, deleted with the namespace.
const MANAGER_PER_POD_S = 0.05;
const MANAGER_FIXED_S = 180;
const TEMPLATE_CHANGE_S = 5;
const REQUEST_S = 0.005;
// sharding, per pod of the namespace: the one-manager variants pace about 3 writes per pod on the
// scale-out and 4 on the rollout at 50/s; the ring's four phases; three namespaces to delete.
const SHARDING_PER_POD_S = (7 / 50) * 2 + 0.15 + 3 * 0.04;
const SHARDING_FIXED_S = 180;

const scaleOutRun = (n: number): number => SCALE_OUT_FIXED_S + SCALE_OUT_PER_POD_S * n;
const largeShippedRun = (n: number): number => n * (LARGE_SHIPPED_PER_POD_S + LARGE_DELETE_PER_POD_S);

export function estimateSeconds(sizes: BenchSizes, scenarios: readonly string[]): number {
  const r = sizes.repeats;
  const per: Record<string, number> = {
    // At N: the CloneSet at both limits, the Deployment alone and with the CloneSet's pod writes; plus one CloneSet run under the CPU profiler.
    'scale-out': r * (4 * scaleOutRun(sizes.scaleOut) + SHIPPED_PER_POD_S * sizes.scaleOut + 2 * scaleOutRun(sizes.scaleOutLarge)) + scaleOutRun(sizes.scaleOut),
    // One run, paced by the shipped limits; the lease is taken first (at most a retry period).
    lease: scaleOutRun(sizes.leaseScaleOut) + SHIPPED_PER_POD_S * sizes.leaseScaleOut + LEASE_ACQUIRE_S,
    // CloneSet ReCreate and InPlaceIfPossible, the Deployment alone and with the CloneSet's pod writes.
    rollout: 4 * (r * (ROLLOUT_FIXED_S + ROLLOUT_PER_POD_S * sizes.rollout) + sizes.rolloutLarge.repeats * (ROLLOUT_FIXED_S + ROLLOUT_PER_POD_S * sizes.rolloutLarge.replicas)),
    // The CloneSet's window waits out its Event recorder's series flush first.
    settled: 2 * (SETTLED_SETUP_S + sizes.settledSeconds) + DEFAULT_EVENT_SERIES_FLUSH_MS / 1000,
    memory: MEMORY_FIXED_S + sizes.memory.reduce((sum, n) => sum + MEMORY_PER_SIZE_S + MEMORY_PER_POD_S * n, 0),
    'scale-large':
      LARGE_FIXED_S +
      largeShippedRun(sizes.large.cloneSetReplicas) +
      sizes.large.cloneSetReplicas * (LARGE_UNTHROTTLED_PER_POD_S + LARGE_DEPLOYMENT_PER_POD_S + 2 * LARGE_DELETE_PER_POD_S),
    'scale-large-shipped': LARGE_FIXED_S + largeShippedRun(sizes.large.cloneSetReplicas),
    'manager-large':
      MANAGER_FIXED_S + sizes.large.managerCloneSets * sizes.large.managerPodsPerCloneSet * MANAGER_PER_POD_S + 2 * sizes.large.templateChanges * TEMPLATE_CHANGE_S,
    sharding: SHARDING_FIXED_S + SHARDING_PER_POD_S * sizes.sharding.cloneSets * sizes.sharding.podsPerCloneSet,
    webhook:
      WEBHOOK_FIXED_S +
      r * sizes.podWebhook.paceSeconds +
      sizes.podWebhook.saturationSeconds +
      REQUEST_S * 2 * (sizes.webhookRequests + sizes.apiserverRequests),
  };
  return scenarios.reduce((sum, s) => sum + (per[s] ?? 0), 0);
}
