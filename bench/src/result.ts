// What a scenario hands the report: one titled table, plus notes on how to read it.

export type Cell = string | number;

export interface Section {
  title: string;
  /** What was measured and how, shown above the table. */
  method: string;
  headers: string[];
  rows: Cell[][];
  /** Observations and anything that distorts the numbers, shown below the table. */
  notes: string[];
}

export interface BenchSizes {
  scaleOut: number[];
  rollout: number;
  settledReplicas: number;
  settledSeconds: number;
  settledResyncMs: number;
  memory: number[];
  webhookRequests: number;
  apiserverRequests: number;
}

export const FULL: BenchSizes = {
  scaleOut: [100, 300],
  rollout: 100,
  settledReplicas: 20,
  settledSeconds: 30,
  settledResyncMs: 10_000,
  memory: [1000, 3000],
  webhookRequests: 500,
  apiserverRequests: 200,
};

export const QUICK: BenchSizes = {
  scaleOut: [30],
  rollout: 30,
  settledReplicas: 10,
  settledSeconds: 10,
  settledResyncMs: 3_000,
  memory: [200, 600],
  webhookRequests: 100,
  apiserverRequests: 50,
};

export const seconds = (ms: number): string => (ms / 1000).toFixed(2);
export const fixed = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
