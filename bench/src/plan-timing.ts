// How long the CloneSet controller's planning holds the event loop. A reconcile reads its cache
// and plans in stages (planReconcileStages), giving the event loop a turn between two once 10 ms
// have passed, then describes the plan and writes: each stage is synchronous and grows with the
// pods a CloneSet owns, so both the whole pass and its longest stage are timed (the loop is held
// at most 10 ms plus one stage). Timed in a fresh process on the real
// objects right after a scale-out (the CloneSet, its pods and revisions, managedFields dropped
// and frozen as the controller's cache holds them), for three passes a reconcile meets:
// settled, a scale-out by a tenth, and a template change; and settled with every pod a new
// version, as on the first pass after a relist: the planners keep what they read of a pod per
// version (cloneset-controller's README, "Planning cost"), so a pass over unchanged pods costs less.
import { describePlan, planReconcileStages, type ReconcileInput } from '@cloneset-suite/cloneset-controller';
import { Resources, deepFreeze, stripManagedFields, type KubeObject } from '@cloneset-suite/kube-runtime';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchClient, cloneSetResource, now } from './kube.ts';
import { sampleStats, type SampleStats } from './samples.ts';

type CloneSet = ReconcileInput['cs'];
export const PLAN_CASES = ['settled', 'settled, every pod changed', 'scale-out', 'template change'] as const;
export type PlanCase = (typeof PLAN_CASES)[number];
export interface PlanTiming {
  pods: number;
  passes: number;
  /**
   * Milliseconds per pass, by case; `longestStage`: per pass, the longest stretch between two of
   * the planner's yields (describePlan counted in the last); `actions`: what the pass planned (so a
   * reader sees it did work).
   */
  cases: Record<PlanCase, SampleStats & { longestStage: SampleStats; actions: number }>;
}

/** The CloneSet as a reconcile would see it for each case (new objects; the input is not touched). */
export function planCases(cs: CloneSet): Record<PlanCase, CloneSet> {
  const replicas = cs.spec.replicas ?? 1;
  const template = cs.spec.template;
  const containers = template.spec?.containers ?? [];
  const changed = containers.map((c, i) => (i === 0 ? { ...c, image: `${c.image ?? 'image'}-changed` } : c));
  return {
    settled: cs,
    'settled, every pod changed': cs,
    'scale-out': { ...cs, spec: { ...cs.spec, replicas: replicas + Math.max(1, Math.round(replicas / 10)) } },
    'template change': { ...cs, spec: { ...cs.spec, template: { ...template, spec: { ...template.spec, containers: changed } } } },
  };
}

/**
 * The pods a pass of `name` plans from: for 'settled, every pod changed' a new frozen copy of
 * each, as the cache holds a pod's next version (made before the pass's timing starts).
 */
export function podsForPass(name: PlanCase, pods: ReconcileInput['pods']): ReconcileInput['pods'] {
  return name === 'settled, every pod changed' ? pods.map((p) => deepFreeze(structuredClone(p)) as unknown as (typeof pods)[number]) : pods;
}

/** Times `passes` plans per case after `warmUp` untimed ones (the controller's process is warm; this one is not). */
export function timePlans(input: Omit<ReconcileInput, 'cs'>, cs: CloneSet, passes: number, warmUp = 20): PlanTiming {
  const cases = {} as PlanTiming['cases'];
  for (const [name, c] of Object.entries(planCases(cs)) as [PlanCase, CloneSet][]) {
    const times: number[] = [];
    const stageTimes: number[] = [];
    let actions = 0;
    for (let i = 0; i < warmUp + passes; i++) {
      const pods = podsForPass(name, input.pods);
      const start = now();
      const stages = planReconcileStages({ ...input, pods, cs: c, nowMs: Date.now() });
      let stageStart = start;
      let longest = 0;
      let next = stages.next();
      while (!next.done) {
        const t = now();
        longest = Math.max(longest, t - stageStart);
        stageStart = t;
        next = stages.next();
      }
      describePlan(next.value);
      const end = now();
      if (i >= warmUp) {
        times.push(end - start);
        stageTimes.push(Math.max(longest, end - stageStart));
      }
      actions = next.value.actions.length;
    }
    cases[name] = { ...sampleStats(times), longestStage: sampleStats(stageTimes), actions };
  }
  return { pods: input.pods.length, passes, cases };
}

const childEntry = fileURLToPath(new URL('./plan-timing-child.ts', import.meta.url));

/** What the child needs: the objects as served, which it turns into what the controller's cache holds. */
export interface PlanTimingRequest {
  cs: KubeObject;
  pods: KubeObject[];
  revisions: KubeObject[];
  passes: number;
}

/**
 * Reads the CloneSet `name` in `ns` with its pods and revisions, and times its planning in a
 * fresh process: the bench process holds every watcher's pods and collects its own garbage, which
 * a controller's process does not; the controller's own pauses are measured apart (./loop-stalls.ts).
 */
export async function timePlanning(ns: string, name: string, passes = 20): Promise<PlanTiming> {
  const client = benchClient();
  const cs = await client.resource<KubeObject>(cloneSetResource).get(ns, name);
  const owned = (o: KubeObject): boolean => (o.metadata?.ownerReferences ?? []).some((r) => r.uid === cs.metadata?.uid);
  const pods = (await client.resource<KubeObject>(Resources.pods).listAll({ namespace: ns })).items.filter(owned);
  const revisions = (await client.resource<KubeObject>(Resources.controllerRevisions).listAll({ namespace: ns })).items.filter(owned);
  return timePlansInChild({ cs, pods, revisions, passes });
}

/** timeCachedPlans in a fresh child process. */
export function timePlansInChild(request: PlanTimingRequest): Promise<PlanTiming> {
  const child = fork(childEntry, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<PlanTiming>((resolve, reject) => {
    child.once('message', (timing) => resolve(timing as PlanTiming));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the planning child exited with ${code} before answering`)));
    child.send(request);
  });
}

/** The objects as the controller's cache holds them (managedFields dropped, frozen), timed. */
export function timeCachedPlans(request: PlanTimingRequest): PlanTiming {
  const cached = <T extends KubeObject>(obj: T): T => deepFreeze(stripManagedFields(obj)) as T;
  const pods = request.pods.map(cached);
  const revisions = request.revisions.map(cached);
  const byName = new Map(pods.map((p) => [p.metadata?.name ?? '', p]));
  const revisionNames = new Set(revisions.map((r) => r.metadata?.name));
  return timePlans(
    {
      pods: pods as unknown as ReconcileInput['pods'],
      pvcs: [],
      revisions: revisions as unknown as ReconcileInput['revisions'],
      revisionNameTaken: (n) => revisionNames.has(n),
      gates: {},
      nowMs: Date.now(),
      random: Math.random,
      podNamed: (n) => byName.get(n) as unknown as ReturnType<NonNullable<ReconcileInput['podNamed']>>,
    },
    cached(request.cs) as unknown as CloneSet,
    request.passes,
  );
}
