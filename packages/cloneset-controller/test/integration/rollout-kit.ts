// Shared pieces of the rollout suites: CloneSet manifests as a user writes them, an
// independent observer (its own Manager and informers on pods and CloneSets) that checks
// rollout invariants on every event, and a `kubectl edit` driven by a scripted editor.
// ROLLOUT_TRACE=1 prints every pod and CloneSet event the observer sees, with timings.
// Note: `kubectl set image` cannot address a CRD (kubectl refuses client-side: no kind
// "CloneSet" in its scheme), so image changes are JSON patches of the template.
import { execFile } from 'node:child_process';
import { eventually, getJson, kubectl, testKubeconfigPath } from '@cloneset-suite/local-cluster';
import { Manager, Resources, loadKubeConfig, type DeepReadonly, type KubeObject, type SharedIndexInformer } from '@cloneset-suite/kube-runtime';
import { cloneSetResource } from '../../src/reconciler/resources.ts';
import type { CloneSetStatusLike } from '../../src/core/types.ts';
import { installCrds, startController, withNamespace, type RunningController } from './harness.ts';
import type { Condition } from './support.ts';

export const REVISION_LABEL = 'controller-revision-hash';
export const STATE_LABEL = 'lifecycle.apps.kruise.io/state';

export type { Condition };

export interface Pod {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec: {
    containers: { name: string; image: string; env?: { name: string; value?: string }[] }[];
    readinessGates?: { conditionType: string }[];
    volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
  };
  status?: {
    phase?: string;
    conditions?: Condition[];
    containerStatuses?: { name: string; image: string; imageID: string; restartCount: number; ready: boolean }[];
  };
}

/** The CloneSet status as the controller writes it (the core's type). */
export type CloneSetStatus = CloneSetStatusLike;

export interface CloneSet {
  metadata: { name: string; generation?: number; uid?: string };
  spec: { replicas?: number; updateStrategy?: Record<string, unknown> } & Record<string, unknown>;
  status?: CloneSetStatus;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---- manifests ----

export interface CloneSetOptions {
  replicas?: number;
  image?: string;
  env?: { name: string; value: string }[];
  /** Pod-template annotations: the simulated kubelet's knobs. */
  sim?: Record<string, string>;
  updateStrategy?: Record<string, unknown>;
  lifecycle?: Record<string, unknown>;
  minReadySeconds?: number;
  progressDeadlineSeconds?: number;
  volumeClaimTemplates?: unknown[];
}

export function cloneSetManifest(name: string, o: CloneSetOptions = {}): Record<string, unknown> {
  const container: Record<string, unknown> = { name: 'main', image: o.image ?? 'nginx:1.24' };
  if (o.env) container.env = o.env;
  if (o.volumeClaimTemplates) container.volumeMounts = [{ name: 'data', mountPath: '/data' }];
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name },
    spec: {
      replicas: o.replicas ?? 5,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations: { 'sim.cloneset-suite.io/ready-delay': '600ms', ...(o.sim ?? {}) } },
        spec: { containers: [container] },
      },
      updateStrategy: o.updateStrategy,
      lifecycle: o.lifecycle,
      minReadySeconds: o.minReadySeconds,
      progressDeadlineSeconds: o.progressDeadlineSeconds,
      volumeClaimTemplates: o.volumeClaimTemplates,
    },
  };
}

export async function apply(ns: string, manifest: unknown): Promise<string> {
  return kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify(manifest));
}

/** kubectl names v1alpha1: with the v1beta1 opt-in, the unversioned resource would put the update knobs under rollingUpdate. */
export const CLONESET_V1ALPHA1 = 'clonesets.v1alpha1.apps.kruise.io';

export async function patchCloneSet(ns: string, name: string, patch: unknown): Promise<void> {
  await kubectl(['patch', CLONESET_V1ALPHA1, name, '-n', ns, '--type=merge', '-p', JSON.stringify(patch)]);
}

/**
 * `kubectl edit` with a scripted editor: the sed expressions run over the YAML kubectl
 * opens, exactly where a user would type.
 */
export function kubectlEdit(ns: string, resource: string, sedExpressions: string[]): Promise<string> {
  const script = sedExpressions.map((e) => `-e '${e}'`).join(' ');
  return new Promise((resolve, reject) => {
    execFile(
      'kubectl',
      ['--kubeconfig', testKubeconfigPath(), 'edit', '-n', ns, resource],
      { env: { ...process.env, KUBE_EDITOR: `sed -i ${script}` }, timeout: 30_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`kubectl edit failed: ${stderr || err.message}`)) : resolve(stdout)),
    );
  });
}

export async function getCloneSet(ns: string, name: string): Promise<CloneSet> {
  const cs = await getJson<CloneSet>([CLONESET_V1ALPHA1, name, '-n', ns]);
  if (!cs) throw new Error(`CloneSet ${ns}/${name} not found`);
  return cs;
}

// ---- pod predicates ----

export const isActive = (p: Pod): boolean =>
  !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
export const condition = (p: Pod, type: string): Condition | undefined => p.status?.conditions?.find((c) => c.type === type);
export const isReady = (p: Pod): boolean => condition(p, 'Ready')?.status === 'True';
export const lifecycleState = (p: Pod): string => p.metadata.labels?.[STATE_LABEL] ?? '';
export const revisionOf = (p: Pod): string => p.metadata.labels?.[REVISION_LABEL] ?? '';
export const imageOf = (p: Pod): string => p.spec.containers[0]?.image ?? '';

/**
 * available as OpenKruise defines it (minReadySeconds 0): Running, Ready, every
 * readiness gate True, lifecycle state "" or Normal.
 */
export function isAvailable(p: Pod): boolean {
  if (!isActive(p) || p.status?.phase !== 'Running' || !isReady(p)) return false;
  const gatesTrue = (p.spec.readinessGates ?? []).every((g) => condition(p, g.conditionType)?.status === 'True');
  const state = lifecycleState(p);
  return gatesTrue && (state === '' || state === 'Normal');
}

// ---- the observer ----

export interface Bounds {
  /** Desired replicas R. */
  replicas: number;
  /** Resolved maxUnavailable U: available pods never drop below R - U. */
  maxUnavailable: number;
  /** Active pods never exceed this (R + maxSurge). */
  maxPods: number;
  /** Pods not at `oldRevision` never exceed this (R - partition, plus surge). */
  maxMoved?: number;
  /** The revision pods are moving away from (for maxMoved). */
  oldRevision?: string;
}

export interface Tracking {
  bounds: Bounds;
  violations: string[];
  maxUnavailableSeen: number;
  maxPodsSeen: number;
  maxMovedSeen: number;
  events: number;
}

export interface Move {
  name: string;
  uid: string;
  revision: string;
  at: number;
}

/**
 * An independent watcher of one namespace: its own client and informers, so what it
 * sees is the apiserver's sequence of events, not the controller's cache.
 */
export class Observer {
  readonly pods: SharedIndexInformer<KubeObject>;
  readonly cloneSets: SharedIndexInformer<KubeObject>;
  private readonly abort = new AbortController();
  private readonly running: Promise<unknown>;
  private readonly tracking = new Map<string, Tracking>();
  /** Every status a CloneSet reported, in order, per CloneSet name. */
  readonly statuses = new Map<string, CloneSetStatus[]>();
  /** Every revision-label change of a pod (and every new pod), in order. */
  readonly moves: Move[] = [];
  readonly statusViolations: string[] = [];
  private readonly listeners = new Set<() => void>();

  private constructor(ns: string) {
    const m = new Manager({ kubeConfig: loadKubeConfig(testKubeconfigPath()), qps: 100, burst: 200 });
    this.pods = m.informers.informerFor<KubeObject>(Resources.pods, { namespace: ns });
    this.cloneSets = m.informers.informerFor<KubeObject>(cloneSetResource, { namespace: ns });
    const recordMove = (p: Pod): void => {
      this.moves.push({ name: p.metadata.name, uid: p.metadata.uid, revision: revisionOf(p), at: Date.now() });
    };
    const t0 = Date.now();
    const trace = (what: string, obj: DeepReadonly<KubeObject>): void => {
      if (!process.env.ROLLOUT_TRACE) return;
      const p = obj as unknown as Pod;
      const conds = (p.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(',');
      console.log(`${String(Date.now() - t0).padStart(6)} ${what} ${p.metadata.name} rev=${revisionOf(p).slice(-5)} img=${imageOf(p)} st=${lifecycleState(p)} ${p.status?.phase ?? ''} ${conds} sd=${p.metadata.labels?.['apps.kruise.io/specified-delete'] ?? ''} del=${p.metadata.deletionTimestamp ? 'y' : ''}`);
    };
    this.pods.addEventHandler({ onAdd: (o) => trace('ADD', o), onUpdate: (_b, a) => trace('UPD', a), onDelete: (o) => trace('DEL', o) });
    this.pods.addEventHandler({
      onAdd: (obj) => {
        recordMove(obj as unknown as Pod);
        this.check();
      },
      onUpdate: (before, after) => {
        if (revisionOf(before as unknown as Pod) !== revisionOf(after as unknown as Pod)) recordMove(after as unknown as Pod);
        this.check();
      },
      onDelete: () => this.check(),
    });
    const onCloneSet = (obj: DeepReadonly<KubeObject>): void => {
      const cs = obj as unknown as CloneSet;
      if (process.env.ROLLOUT_TRACE) {
        const st = cs.status ?? {};
        console.log(`${String(Date.now() - t0).padStart(6)} CS ${cs.metadata.name} gen=${cs.metadata.generation ?? ''} obs=${st.observedGeneration ?? ''} r=${st.replicas ?? ''} ready=${st.readyReplicas ?? ''} avail=${st.availableReplicas ?? ''} upd=${st.updatedReplicas ?? ''} updReady=${st.updatedReadyReplicas ?? ''} updAvail=${st.updatedAvailableReplicas ?? ''} exp=${st.expectedUpdatedReplicas ?? ''} cur=${(st.currentRevision ?? '').slice(-5)} upd=${(st.updateRevision ?? '').slice(-5)} ${(st.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason ?? ''}`).join(',')}`);
      }
      if (!cs.status) return;
      const list = this.statuses.get(cs.metadata.name) ?? [];
      const last = list.at(-1);
      if (JSON.stringify(last) !== JSON.stringify(cs.status)) list.push(structuredClone<CloneSetStatus>(cs.status));
      this.statuses.set(cs.metadata.name, list);
      this.checkStatus(cs);
      for (const l of this.listeners) l();
    };
    this.cloneSets.addEventHandler({ onAdd: onCloneSet, onUpdate: (_b, a) => onCloneSet(a) });
    this.running = m.start(this.abort.signal);
  }

  static async start(ns: string): Promise<Observer> {
    const o = new Observer(ns);
    await o.pods.waitForSync();
    await o.cloneSets.waitForSync();
    return o;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** Active pods of a CloneSet (by its `app` label) as the observer sees them now. */
  activePods(app: string): Pod[] {
    return (this.pods.list() as unknown as Pod[]).filter((p) => p.metadata.labels?.app === app && isActive(p));
  }

  /** Starts checking bounds for `app` on every pod event; returns the live record. */
  track(app: string, bounds: Bounds): Tracking {
    const t: Tracking = { bounds, violations: [], maxUnavailableSeen: 0, maxPodsSeen: 0, maxMovedSeen: 0, events: 0 };
    this.tracking.set(app, t);
    this.check();
    return t;
  }

  untrack(app: string): Tracking | undefined {
    const t = this.tracking.get(app);
    this.tracking.delete(app);
    return t;
  }

  /** Calls `fn` on every CloneSet status change; returns an unsubscribe function. */
  onStatus(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private check(): void {
    for (const [app, t] of this.tracking) {
      const pods = this.activePods(app);
      const unavailable = t.bounds.replicas - pods.filter(isAvailable).length;
      const moved = t.bounds.oldRevision ? pods.filter((p) => revisionOf(p) !== t.bounds.oldRevision).length : 0;
      t.events++;
      t.maxUnavailableSeen = Math.max(t.maxUnavailableSeen, unavailable);
      t.maxPodsSeen = Math.max(t.maxPodsSeen, pods.length);
      t.maxMovedSeen = Math.max(t.maxMovedSeen, moved);
      const describe = (): string =>
        pods.map((p) => `${p.metadata.name}[${revisionOf(p).slice(-6)} ${isAvailable(p) ? 'avail' : 'unavail'} ${lifecycleState(p)}]`).join(' ');
      // A pod whose readiness-gate condition the controller turned False must not be
      // reported Ready at the same time (PodReady recomputed in the same write).
      for (const p of pods) {
        const falseGate = (p.spec.readinessGates ?? []).find((g) => condition(p, g.conditionType)?.status === 'False');
        if (falseGate && isReady(p)) t.violations.push(`${p.metadata.name} Ready while ${falseGate.conditionType} is False`);
      }
      if (unavailable > t.bounds.maxUnavailable) t.violations.push(`${unavailable} unavailable > ${t.bounds.maxUnavailable}: ${describe()}`);
      if (pods.length > t.bounds.maxPods) t.violations.push(`${pods.length} pods > ${t.bounds.maxPods}: ${describe()}`);
      if (t.bounds.maxMoved !== undefined && moved > t.bounds.maxMoved) t.violations.push(`${moved} moved pods > ${t.bounds.maxMoved}: ${describe()}`);
    }
  }

  /** Status counters must never claim more than is possible (OpenKruise's CloneSet status). */
  private checkStatus(cs: CloneSet): void {
    const s = cs.status ?? {};
    const n = (v: number | undefined): number => v ?? 0;
    const rules: [boolean, string][] = [
      [n(s.updatedReplicas) <= n(s.replicas), 'updatedReplicas <= replicas'],
      [n(s.readyReplicas) <= n(s.replicas), 'readyReplicas <= replicas'],
      [n(s.availableReplicas) <= n(s.readyReplicas), 'availableReplicas <= readyReplicas'],
      [n(s.updatedReadyReplicas) <= n(s.updatedReplicas), 'updatedReadyReplicas <= updatedReplicas'],
      [n(s.updatedReadyReplicas) <= n(s.readyReplicas), 'updatedReadyReplicas <= readyReplicas'],
      [n(s.updatedAvailableReplicas) <= n(s.updatedReadyReplicas), 'updatedAvailableReplicas <= updatedReadyReplicas'],
      [n(s.updatedAvailableReplicas) <= n(s.availableReplicas), 'updatedAvailableReplicas <= availableReplicas'],
      // Only a status written for this generation can be compared with its spec.
      [s.observedGeneration !== cs.metadata.generation || n(s.expectedUpdatedReplicas) <= n(cs.spec.replicas), 'expectedUpdatedReplicas <= spec.replicas'],
    ];
    for (const [ok, rule] of rules) if (!ok) this.statusViolations.push(`${cs.metadata.name}: ${rule}: ${JSON.stringify(s)}`);
  }
}

// ---- waiting ----

/** Waits until the CloneSet is settled on its update revision with every pod available. */
export async function waitSettled(ns: string, name: string, replicas: number, timeoutMs = 45_000): Promise<CloneSet> {
  return eventually(
    `${name} settled`,
    async () => {
      const cs = await getCloneSet(ns, name);
      const s = cs.status;
      return s &&
        s.observedGeneration === cs.metadata.generation &&
        s.replicas === replicas &&
        s.updatedReplicas === replicas &&
        s.updatedAvailableReplicas === replicas &&
        s.availableReplicas === replicas &&
        s.currentRevision === s.updateRevision
        ? cs
        : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** Waits until the status has a new updateRevision (after a template change) and returns it. */
export async function waitNewRevision(ns: string, name: string, previous: string): Promise<string> {
  const cs = await eventually(`${name} updateRevision moves off ${previous}`, async () => {
    const c = await getCloneSet(ns, name);
    return c.status?.updateRevision && c.status.updateRevision !== previous && c.status.observedGeneration === c.metadata.generation ? c : undefined;
  });
  return cs.status?.updateRevision ?? '';
}

export async function podsOf(ns: string, app: string): Promise<Pod[]> {
  const list = await getJson<{ items: Pod[] }>(['pods', '-n', ns, '-l', `app=${app}`]);
  return (list?.items ?? []).filter(isActive);
}

export interface RolloutSetup {
  ns: string;
  observer: Observer;
  controller: RunningController;
  /** Stops the controller, then the observer, then deletes the namespace. */
  tearDown: () => Promise<void>;
}

/** What every rollout suite starts with: CRDs, a namespace, the observer, the controller (with `options`). */
export async function setUpRollout(prefix: string, options: Parameters<typeof startController>[1] = {}): Promise<RolloutSetup> {
  await installCrds();
  const { name: ns, remove } = await withNamespace(prefix);
  const observer = await Observer.start(ns);
  const controller = startController(ns, options);
  return {
    ns,
    observer,
    controller,
    tearDown: async () => {
      await controller.stop();
      await observer.stop();
      await remove();
    },
  };
}
