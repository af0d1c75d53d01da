// The bench's scenarios by their --only name, in the order a run takes them, and which of them
// run only when named: kept apart from run.ts so that the tests can check the table.
import type { BenchSizes, Section } from './result.ts';
import { leaseScenario } from './scenarios/lease.ts';
import { managerLargeScenario } from './scenarios/manager-large.ts';
import { memoryScenario } from './scenarios/memory.ts';
import { rolloutScenario } from './scenarios/rollout.ts';
import { nodesForLarge, scaleLargeScenario, scaleLargeShippedScenario } from './scenarios/scale-large.ts';
import { scaleOutScenario } from './scenarios/scale-out.ts';
import { settledScenario } from './scenarios/settled.ts';
import { shardingScenario } from './scenarios/sharding.ts';
import { webhookScenario } from './scenarios/webhook.ts';

export type Scenario = (sizes: BenchSizes, log: (line: string) => void) => Promise<Section>;

// The webhook's latency is measured before the memory section: that one leaves 10,000 pods for
// the namespace controller and the simulated kubelet to delete, minutes of load on the machine.
export const SCENARIOS: Record<string, Scenario> = {
  'scale-out': scaleOutScenario,
  rollout: rolloutScenario,
  settled: settledScenario,
  webhook: webhookScenario,
  memory: memoryScenario,
  lease: leaseScenario,
  'scale-large': scaleLargeScenario,
  'scale-large-shipped': scaleLargeShippedScenario,
  'manager-large': managerLargeScenario,
  sharding: shardingScenario,
};

/** Most of an hour or more at full size, or (sharding) the sharder built from its source: run only when --only names them. */
export const OPT_IN = ['scale-large', 'scale-large-shipped', 'manager-large', 'sharding'];

/** The scenarios of one CloneSet of --large-replicas pods. */
const LARGE_CLONESET = ['scale-large', 'scale-large-shipped'];

/**
 * The simulated nodes to start the cluster with: enough for one CloneSet of `replicas` pods when a
 * scenario of one is selected (more than the 6 the cluster starts with at 10,000), else undefined.
 */
export function clusterNodes(names: readonly string[], replicas: number): number | undefined {
  return names.some((n) => LARGE_CLONESET.includes(n)) ? nodesForLarge(replicas) : undefined;
}
