// How long the CloneSet controller's planning holds the event loop. A reconcile reads its cache,
// calls planReconcile and describePlan with no await in between, then writes: that stretch is
// synchronous, and grows with the pods a CloneSet owns. Timed here in the bench process on the
// real objects right after a scale-out (the CloneSet, its pods and revisions, managedFields
// dropped and frozen as the controller's cache holds them), for three passes a reconcile meets:
// settled, a scale-out by a tenth, and a template change.
import { describePlan, planReconcile, type ReconcileInput } from '@cloneset-suite/cloneset-controller';
import { Resources, deepFreeze, stripManagedFields, type KubeObject } from '@cloneset-suite/kube-runtime';
import { benchClient, cloneSetResource, now } from './kube.ts';
import { sampleStats, type SampleStats } from './samples.ts';

type CloneSet = ReconcileInput['cs'];
export const PLAN_CASES = ['settled', 'scale-out', 'template change'] as const;
export type PlanCase = (typeof PLAN_CASES)[number];
export interface PlanTiming {
  pods: number;
  passes: number;
  /** Milliseconds per pass, by case; `actions`: what the pass planned (so a reader sees it did work). */
  cases: Record<PlanCase, SampleStats & { actions: number }>;
}

/** The CloneSet as a reconcile would see it for each case (new objects; the input is not touched). */
export function planCases(cs: CloneSet): Record<PlanCase, CloneSet> {
  const replicas = cs.spec.replicas ?? 1;
  const template = cs.spec.template;
  const containers = template.spec?.containers ?? [];
  const changed = containers.map((c, i) => (i === 0 ? { ...c, image: `${c.image ?? 'image'}-changed` } : c));
  return {
    settled: cs,
    'scale-out': { ...cs, spec: { ...cs.spec, replicas: replicas + Math.max(1, Math.round(replicas / 10)) } },
    'template change': { ...cs, spec: { ...cs.spec, template: { ...template, spec: { ...template.spec, containers: changed } } } },
  };
}

/** Times `passes` plans per case after `warmUp` untimed ones (the controller's process is warm; this one is not). */
export function timePlans(input: Omit<ReconcileInput, 'cs'>, cs: CloneSet, passes: number, warmUp = 5): PlanTiming {
  const cases = {} as PlanTiming['cases'];
  for (const [name, c] of Object.entries(planCases(cs)) as [PlanCase, CloneSet][]) {
    const times: number[] = [];
    let actions = 0;
    for (let i = 0; i < warmUp + passes; i++) {
      const start = now();
      const plan = planReconcile({ ...input, cs: c, nowMs: Date.now() });
      describePlan(plan);
      if (i >= warmUp) times.push(now() - start);
      actions = plan.actions.length;
    }
    cases[name] = { ...sampleStats(times), actions };
  }
  return { pods: input.pods.length, passes, cases };
}

const cached = <T extends KubeObject>(obj: T): T => deepFreeze(stripManagedFields(obj)) as T;

/** Reads the CloneSet `name` in `ns` with its pods and revisions, and times its planning. */
export async function timePlanning(ns: string, name: string, passes = 20): Promise<PlanTiming> {
  const client = benchClient();
  const cs = cached(await client.resource<KubeObject>(cloneSetResource).get(ns, name)) as unknown as CloneSet & KubeObject;
  const uid = cs.metadata?.uid;
  const owned = (o: KubeObject): boolean => (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
  const pods = (await client.resource<KubeObject>(Resources.pods).listAll({ namespace: ns })).items.filter(owned).map(cached);
  const revisions = (await client.resource<KubeObject>(Resources.controllerRevisions).listAll({ namespace: ns })).items.filter(owned).map(cached);
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
    cs,
    passes,
  );
}
