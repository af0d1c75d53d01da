// Samples a CloneSet's pods and PVCs every `intervalMs` while a scenario runs and feeds each
// snapshot to the pure invariant checker, so a guarantee broken for a moment is caught, not only
// one broken at the end.
import type { KubeClient } from '@cloneset-suite/kube-runtime';
import { checkSnapshot, emptyHistory, INSTANCE_ID_LABEL, type History, type Limits, type Snapshot, type Violation } from '../../src/chaos/invariants.ts';
import { isReady, podsOf, pvcsOf, type PodObject, type PvcObject } from './cluster-client.ts';

export interface SampledViolation {
  invariant: Violation['invariant'] | (string & {});
  detail: string;
  atMs: number;
}

/** A scenario's own check on each sample, beside the rollout invariants (stateful: it keeps its history). */
export type SnapshotCheck = (snap: Snapshot) => { invariant: string; detail: string }[];

export async function takeSnapshot(client: KubeClient, namespace: string, selector: string): Promise<Snapshot> {
  // PVCs first: a pod seen alive afterwards was alive when its claim was seen gone.
  const pvcs = (await pvcsOf(client).list({ namespace, labelSelector: selector })).items;
  const pods = (await podsOf(client).list({ namespace, labelSelector: selector })).items;
  return { pvcs: pvcs.map(pvcView), pods: pods.map(podView) };
}

const podView = (p: PodObject): Snapshot['pods'][number] => ({
  name: p.metadata.name ?? '',
  uid: p.metadata.uid ?? '',
  instanceId: p.metadata.labels?.[INSTANCE_ID_LABEL],
  ready: isReady(p),
  terminating: p.metadata.deletionTimestamp !== undefined,
  labels: p.metadata.labels ?? {},
  annotations: p.metadata.annotations ?? {},
});

const pvcView = (c: PvcObject): Snapshot['pvcs'][number] => ({
  name: c.metadata.name ?? '',
  uid: c.metadata.uid ?? '',
  instanceId: c.metadata.labels?.[INSTANCE_ID_LABEL],
  ownerUids: (c.metadata.ownerReferences ?? []).filter((r) => r.controller).map((r) => r.uid),
  terminating: c.metadata.deletionTimestamp !== undefined,
});

export class InvariantSampler {
  private history: History = emptyHistory();
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  readonly violations: SampledViolation[] = [];
  samples = 0;
  sampleErrors = 0;
  private readonly started = Date.now();
  private readonly extraChecks: SnapshotCheck[] = [];

  private readonly client: KubeClient;
  private readonly namespace: string;
  private readonly selector: string;
  limits: Limits;
  private readonly intervalMs: number;

  constructor(client: KubeClient, namespace: string, selector: string, limits: Limits, intervalMs = 250) {
    this.client = client;
    this.namespace = namespace;
    this.selector = selector;
    this.limits = limits;
    this.intervalMs = intervalMs;
  }

  addCheck(check: SnapshotCheck): void {
    this.extraChecks.push(check);
  }

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        await this.sampleOnce().catch(() => this.sampleErrors++);
        await new Promise((r) => setTimeout(r, this.intervalMs));
      }
    })();
  }

  async sampleOnce(): Promise<void> {
    const snap = await takeSnapshot(this.client, this.namespace, this.selector);
    const { history, violations: found } = checkSnapshot(this.history, snap, this.limits);
    this.history = history;
    const violations = [...found, ...this.extraChecks.flatMap((check) => check(snap))];
    this.samples++;
    const atMs = Date.now() - this.started;
    // Keep the first few of each kind: enough to explain, bounded in memory.
    for (const v of violations) if (this.violations.filter((x) => x.invariant === v.invariant).length < 5) this.violations.push({ ...v, atMs });
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  summary(): string {
    return `${this.samples} samples (${this.sampleErrors} failed to list), ${this.violations.length} violations${this.violations.length ? ':\n' + this.violations.map((v) => `  +${v.atMs}ms ${v.invariant}: ${v.detail}`).join('\n') : ''}`;
  }
}
