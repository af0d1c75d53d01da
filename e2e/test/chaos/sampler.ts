// Samples a CloneSet's pods and PVCs every `intervalMs` while a scenario runs and feeds each
// snapshot to the pure invariant checker, so a guarantee broken for a moment is caught, not only
// one broken at the end.
import type { KubeClient } from '@cloneset-suite/kube-runtime';
import { checkSnapshot, emptyHistory, INSTANCE_ID_LABEL, type CloneSetView, type History, type Limits, type Snapshot } from '../../src/chaos/invariants.ts';
import { ViolationLog, type SampledViolation } from '../../src/chaos/violation-log.ts';
import { cloneSetsOf, isReady, podsOf, pvcsOf, type PodObject, type PvcObject } from './cluster-client.ts';

/** A scenario's own check on each sample, beside the rollout invariants (stateful: it keeps its history). */
export type SnapshotCheck = (snap: Snapshot) => { invariant: string; detail: string }[];

/** `cloneSetUid`: also read that CloneSet, after the pods, so the check follows its spec.replicas. */
export async function takeSnapshot(client: KubeClient, namespace: string, selector: string, cloneSetUid?: string): Promise<Snapshot> {
  // PVCs first: a pod seen alive afterwards was alive when its claim was seen gone.
  const pvcs = (await pvcsOf(client).list({ namespace, labelSelector: selector })).items;
  const pods = (await podsOf(client).list({ namespace, labelSelector: selector })).items;
  const cloneSet = cloneSetUid === undefined ? undefined : await cloneSetView(client, namespace, cloneSetUid);
  return { pvcs: pvcs.map(pvcView), pods: pods.map(podView), cloneSet };
}

async function cloneSetView(client: KubeClient, namespace: string, uid: string): Promise<CloneSetView> {
  const cs = (await cloneSetsOf(client).list({ namespace })).items.find((c) => c.metadata.uid === uid);
  if (!cs) throw new Error(`CloneSet ${uid} not found in ${namespace}`);
  return { replicas: cs.spec.replicas ?? 1, generation: cs.metadata.generation ?? 0, observedGeneration: cs.status?.observedGeneration ?? 0 };
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

export interface SamplerOptions {
  intervalMs?: number;
  /**
   * Check surge and availability against the CloneSet's own spec.replicas (read with every sample),
   * for a scenario that changes it: the largest count in force for surge, the smallest for
   * availability (invariants.ts, replicasInForce). Otherwise `limits.replicas` holds throughout.
   */
  followSpecReplicas?: boolean;
}

export class InvariantSampler {
  private history: History = emptyHistory();
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  /** Every violation, counted by kind, with the details of the first few of each. */
  private readonly log = new ViolationLog();
  samples = 0;
  sampleErrors = 0;
  private readonly started = Date.now();
  private readonly extraChecks: SnapshotCheck[] = [];

  private readonly client: KubeClient;
  private readonly namespace: string;
  private readonly selector: string;
  limits: Limits;
  private readonly intervalMs: number;
  private readonly followSpecReplicas: boolean;

  constructor(client: KubeClient, namespace: string, selector: string, limits: Limits, options: SamplerOptions = {}) {
    this.client = client;
    this.namespace = namespace;
    this.selector = selector;
    this.limits = limits;
    this.intervalMs = options.intervalMs ?? 250;
    this.followSpecReplicas = options.followSpecReplicas ?? false;
  }

  /** The first few violations of each kind, with their details. */
  get violations(): readonly SampledViolation[] {
    return this.log.details;
  }

  /** Violations of every kind over the whole run. */
  get violationTotal(): number {
    return this.log.total;
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
    const snap = await takeSnapshot(this.client, this.namespace, this.selector, this.followSpecReplicas ? this.limits.cloneSetUid : undefined);
    const { history, violations: found } = checkSnapshot(this.history, snap, this.limits);
    this.history = history;
    const violations = [...found, ...this.extraChecks.flatMap((check) => check(snap))];
    this.samples++;
    const atMs = Date.now() - this.started;
    for (const v of violations) this.log.record({ ...v, atMs });
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  summary(): string {
    return `${this.samples} samples (${this.sampleErrors} failed to list), ${this.log.summary()}`;
  }
}
