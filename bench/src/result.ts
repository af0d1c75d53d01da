// What a scenario hands the report: one titled table, plus notes on how to read it, and its
// share of results.json.
import type { ResultData } from './results-json.ts';
import type { ShardingSizes } from './scenarios/sharding.ts';

export type Cell = string | number;

export interface Section {
  title: string;
  /** What was measured and how, shown above the table. */
  method: string;
  headers: string[];
  rows: Cell[][];
  /** Observations and anything that distorts the numbers, shown below the table. */
  notes: string[];
  /** Further tables, each under its caption, after the notes. */
  extraTables?: { caption: string; headers: string[]; rows: Cell[][] }[];
  /** Groups of results.json this scenario fills. */
  data: ResultData;
}

export interface PodWebhookLoad {
  connections: number;
  /** The paced phase: this many requests per second, for this long (the 1,000 req/s target). */
  paceRps: number;
  paceSeconds: number;
  /** The saturation phase: every connection sends back to back until either bound is reached. */
  saturationRequests: number;
  saturationSeconds: number;
}

/** The large scenarios' sizes (run only when --only names them: hours at full size). */
export interface LargeSizes {
  /** scale-large and scale-large-shipped: one CloneSet scaled from 0 to this, then rolled out twice. */
  cloneSetReplicas: number;
  /** The rollouts' update budget (no surge). */
  maxUnavailable: string;
  /** manager-large: this many CloneSets... */
  managerCloneSets: number;
  /** ...of this many pods each, under one manager. */
  managerPodsPerCloneSet: number;
  /** Template changes of one CloneSet timed at each manager size. */
  templateChanges: number;
}

export interface BenchSizes {
  /** How many times each timed scenario runs its variants (alternated, see alternation.ts). */
  repeats: number;
  /** The scale-out compared at both client limits (the N = 300). */
  scaleOut: number;
  /** The large scale-out (N = 1,000), where CPU and event-loop delay are measured too. */
  scaleOutLarge: number;
  /** The scale-out at the shipped client limits during which the leader's Lease renewals are watched (N = 1,000). */
  leaseScaleOut: number;
  rollout: number;
  /**
   * The larger rollout (the N = 500): its table rows and results.json group, no timeline.
   * Fewer repeats than the rest: three would add about 10 minutes to the full run.
   */
  rolloutLarge: { replicas: number; repeats: number };
  settledReplicas: number;
  settledSeconds: number;
  settledResyncMs: number;
  memory: number[];
  webhookRequests: number;
  apiserverRequests: number;
  podWebhook: PodWebhookLoad;
  large: LargeSizes;
  /** sharding: this many CloneSets of this many pods, under one manager and under a ring of shards. */
  sharding: ShardingSizes;
}

export const FULL: BenchSizes = {
  repeats: 3,
  scaleOut: 300,
  scaleOutLarge: 1000,
  leaseScaleOut: 1000,
  rollout: 100,
  rolloutLarge: { replicas: 500, repeats: 1 },
  settledReplicas: 20,
  settledSeconds: 30,
  settledResyncMs: 10_000,
  // The largest size is the 10,000 pods: the chart's memory limit is set from it.
  memory: [1000, 10_000],
  webhookRequests: 500,
  apiserverRequests: 200,
  podWebhook: { connections: 16, paceRps: 1000, paceSeconds: 5, saturationRequests: 20_000, saturationSeconds: 10 },
  // The sizes: platform teams run CloneSets of thousands of pods, clusters of tens of thousands.
  large: { cloneSetReplicas: 10_000, maxUnavailable: '10%', managerCloneSets: 50, managerPodsPerCloneSet: 1000, templateChanges: 5 },
  sharding: { cloneSets: 6, podsPerCloneSet: 300 },
};

// Every code path of the full run, at sizes a loaded machine gets through in a few minutes.
export const QUICK: BenchSizes = {
  repeats: 1,
  scaleOut: 30,
  scaleOutLarge: 60,
  leaseScaleOut: 60,
  rollout: 30,
  rolloutLarge: { replicas: 40, repeats: 1 },
  settledReplicas: 10,
  settledSeconds: 10,
  settledResyncMs: 3_000,
  memory: [200, 600],
  webhookRequests: 100,
  apiserverRequests: 50,
  podWebhook: { connections: 16, paceRps: 1000, paceSeconds: 1, saturationRequests: 2_000, saturationSeconds: 3 },
  large: { cloneSetReplicas: 300, maxUnavailable: '10%', managerCloneSets: 4, managerPodsPerCloneSet: 100, templateChanges: 2 },
  sharding: { cloneSets: 6, podsPerCloneSet: 20 },
};

export const seconds = (ms: number): string => (ms / 1000).toFixed(2);
export const fixed = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
