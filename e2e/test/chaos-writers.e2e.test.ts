// Concurrent writers: while a CloneSet rolls out, the test plays a user editing at the
// same time on a seeded schedule: labels (merge patch) and annotations (read-modify-write PUT) of
// its own on the pods, pod deletes, and the CloneSet's replicas, partition, image (back and
// forth) and paused (read-modify-write PUTs, retried on conflict, racing the controller's status
// writes). The sampler checks every 250 ms that a mark the user wrote is never removed or changed
// by a later write (user-marks.ts) and that no instance id has two pods; at the end the CloneSet
// is at the last spec written (settled-spec.ts) and every written mark is on its surviving pod.
// The schedule closes by marking every pod and then changing to an image no earlier edit set,
// below the partition, so the controller rewrites marked pods in every run. The last test breaks the guarantee on purpose
// (a writer drops a user label): the sampler must report it. `npm test`: 40 edits in 30 s; `npm run test:chaos`: 300 in 240 s. CHAOS_SEED=<n> replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergePatch, NotFoundError, Resources, retryOnConflict, type KubeClient } from '@cloneset-suite/kube-runtime';
import { eventually } from '@cloneset-suite/local-cluster';
import { sumSamples } from '../src/chaos/metrics.ts';
import { chaosLong, chaosSeed } from '../src/chaos/seeded.ts';
import { specMismatches, type WantedSpec } from '../src/chaos/settled-spec.ts';
import { checkUserMarks, marksOf, missingWrittenMarks, USER_MARK_PREFIX, type MarkHistory } from '../src/chaos/user-marks.ts';
import { finalSpec, pickPod, writerSchedule, type WriterEdit } from '../src/chaos/writer-schedule.ts';
import { cloneSetsOf, isReady, observerClient, podsOf, type CloneSetObject } from './chaos/cluster-client.ts';
import { startChaosEnvironment, type ChaosEnvironment } from './chaos/manager-process.ts';
import { applyObject, chaosCloneSet, waitForRollout } from './chaos/rollout.ts';
import { InvariantSampler } from './chaos/sampler.ts';

const long = chaosLong();
const EDITS = long ? 300 : 40;
const SPAN_MS = long ? 240_000 : 30_000;
const MAX_REPLICAS = long ? 16 : 8;
const IMAGES = ['nginx:1.0', 'nginx:2.0'] as const;
/** Set only by the schedule's close: no pod is at it before. */
const CLOSING_IMAGE = 'nginx:3.0';
const NAME = 'writers';
const seed = chaosSeed();
const client = observerClient();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type TemplateSpec = { template: { spec: { containers: { image: string }[] } }; updateStrategy: { partition?: number; paused?: boolean } };
const specOf = (cs: CloneSetObject): TemplateSpec => cs.spec as unknown as TemplateSpec;

/** The user: every write it got acknowledged, and how often it lost a race. */
class User {
  readonly written = new Map<string, Map<string, string>>();
  conflicts = 0;
  marks = 0;
  deletes = 0;
  private readonly client: KubeClient;
  private readonly namespace: string;

  constructor(c: KubeClient, namespace: string) {
    this.client = c;
    this.namespace = namespace;
  }

  async apply(edit: WriterEdit): Promise<void> {
    switch (edit.kind) {
      case 'podLabel':
      case 'podAnnotation':
      case 'deletePod':
        return this.onPod(edit.kind, edit.pick);
      case 'markAll':
        return this.markAll();
      default:
        return this.onCloneSet(edit);
    }
  }

  private async onPod(kind: 'podLabel' | 'podAnnotation' | 'deletePod', pick: number): Promise<void> {
    const pods = (await podsOf(this.client).list({ namespace: this.namespace, labelSelector: `app=${NAME}` })).items.filter((p) => !p.metadata.deletionTimestamp);
    const name = pickPod(pods.map((p) => p.metadata.name ?? ''), pick);
    if (name === undefined) return;
    // Each key once, never changed: any later difference is someone else's write.
    const key = `${USER_MARK_PREFIX}m${++this.marks}`;
    const value = `v${this.marks}`;
    try {
      if (kind === 'deletePod') {
        await podsOf(this.client).delete(this.namespace, name);
        this.deletes++;
      } else if (kind === 'podLabel') {
        const pod = await podsOf(this.client).patch(this.namespace, name, mergePatch({ metadata: { labels: { [key]: value } } }));
        this.record(pod.metadata.uid ?? '', `label:${key}`, value);
      } else {
        // A read-modify-write with the resourceVersion read, as `kubectl edit`: loses races to the controller's writes.
        const pod = await retryOnConflict(async (attempt) => {
          if (attempt > 1) this.conflicts++;
          const current = await podsOf(this.client).get(this.namespace, name);
          current.metadata.annotations = { ...(current.metadata.annotations ?? {}), [key]: value };
          return podsOf(this.client).replace(current);
        }, { steps: 10 });
        this.record(pod.metadata.uid ?? '', `annotation:${key}`, value);
      }
    } catch (err) {
      // The pod went away between the list and the write (the controller or an earlier delete): nothing written.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  private async markAll(): Promise<void> {
    const pods = (await podsOf(this.client).list({ namespace: this.namespace, labelSelector: `app=${NAME}` })).items.filter((p) => !p.metadata.deletionTimestamp);
    // One pick per pod: pickPod over n sorted names at (i + 0.5) / n is the i-th.
    for (let i = 0; i < pods.length; i++) await this.onPod('podLabel', (i + 0.5) / pods.length);
  }

  private async onCloneSet(edit: Exclude<WriterEdit, { pick: number } | { kind: 'markAll' }>): Promise<void> {
    await retryOnConflict(async (attempt) => {
      if (attempt > 1) this.conflicts++;
      const cs = await cloneSetsOf(this.client).get(this.namespace, NAME);
      const spec = specOf(cs);
      if (edit.kind === 'replicas') cs.spec.replicas = edit.value;
      else if (edit.kind === 'partition') spec.updateStrategy.partition = edit.value;
      else if (edit.kind === 'paused') spec.updateStrategy.paused = edit.value;
      else spec.template.spec.containers[0]!.image = edit.value;
      return cloneSetsOf(this.client).replace(cs);
    }, { steps: 10 });
  }

  private record(uid: string, key: string, value: string): void {
    const marks = this.written.get(uid) ?? new Map<string, string>();
    marks.set(key, value);
    this.written.set(uid, marks);
  }
}

async function mismatches(namespace: string, want: WantedSpec): Promise<string[]> {
  const cs = await cloneSetsOf(client).get(namespace, NAME);
  const spec = specOf(cs);
  const pods = (await podsOf(client).list({ namespace, labelSelector: `app=${NAME}` })).items;
  const rev = cs.status?.updateRevision;
  const revision = rev ? await client.resource<{ data?: unknown; metadata: object }>(Resources.controllerRevisions).get(namespace, rev).catch(() => undefined) : undefined;
  const revisionImages = [...IMAGES, CLOSING_IMAGE].filter((img) => JSON.stringify(revision?.data ?? '').includes(`"${img}"`));
  return specMismatches(
    want,
    {
      generation: cs.metadata.generation,
      spec: { replicas: cs.spec.replicas, partition: spec.updateStrategy.partition ?? 0, paused: spec.updateStrategy.paused ?? false, image: spec.template.spec.containers[0]?.image ?? '' },
      status: cs.status,
    },
    pods.map((p) => ({
      name: p.metadata.name ?? '',
      revision: p.metadata.labels?.['controller-revision-hash'],
      image: p.spec?.containers?.[0]?.image,
      ready: isReady(p),
      terminating: p.metadata.deletionTimestamp !== undefined,
    })),
    revisionImages.length === 1 ? revisionImages[0] : undefined,
  );
}

describe(`concurrent writers during a rollout (seed ${seed}, ${EDITS} edits in ${SPAN_MS / 1000} s)`, () => {
  let env: ChaosEnvironment;
  let sampler: InvariantSampler;
  let user: User;

  beforeAll(async () => {
    console.log(`[chaos-writers] seed ${seed} (replay with CHAOS_SEED=${seed})`);
    env = await startChaosEnvironment('chaos-writers');
  });

  afterAll(async () => {
    await sampler?.stop();
    await env?.teardown();
  });

  it('retries conflicts, overwrites nothing the user wrote, ends at the last spec with one pod per instance id', async () => {
    const ns = env.namespace;
    const initial: WantedSpec = { replicas: 4, partition: 0, image: IMAGES[0], paused: false };
    await applyObject(ns, chaosCloneSet({ name: NAME, replicas: initial.replicas, strategy: 'InPlaceIfPossible', maxSurge: 1, maxUnavailable: 2, withPvcs: false, image: initial.image }));
    await waitForRollout(client, ns, NAME, 120_000);
    const uid = (await cloneSetsOf(client).get(ns, NAME)).metadata.uid ?? '';
    // Replicas and deletes are the user's: only one pod per id and the user's marks are checked throughout.
    sampler = new InvariantSampler(client, ns, `app=${NAME}`, { cloneSetUid: uid, replicas: MAX_REPLICAS, maxSurge: 1, maxUnavailable: MAX_REPLICAS, checkAvailability: false, withPvcs: false });
    let marks: MarkHistory = new Map();
    sampler.addCheck((snap) => {
      const r = checkUserMarks(marks, snap.pods);
      marks = r.history;
      return r.violations;
    });
    // How often the controller rewrote a pod the user had marked (an in-place update changes its revision label).
    const revisionOf = new Map<string, string>();
    let updatesOfMarkedPods = 0;
    sampler.addCheck((snap) => {
      for (const p of snap.pods) {
        const rev = p.labels?.['controller-revision-hash'];
        const before = revisionOf.get(p.uid);
        if (before !== undefined && rev !== before && marksOf(p).size > 0) updatesOfMarkedPods++;
        if (rev !== undefined) revisionOf.set(p.uid, rev);
      }
      return [];
    });
    sampler.start();

    const schedule = writerSchedule(seed, { edits: EDITS, spanMs: SPAN_MS, minReplicas: 3, maxReplicas: MAX_REPLICAS, images: IMAGES, closingImage: CLOSING_IMAGE });
    const want = finalSpec(initial, schedule);
    user = new User(client, ns);
    const started = Date.now();
    for (const { atMs, edit } of schedule) {
      await sleep(Math.max(0, started + atMs - Date.now()));
      await user.apply(edit);
    }
    const editedMs = Date.now() - started;

    let last: string[] = [];
    await eventually('the CloneSet at the last spec written', async () => (last = await mismatches(ns, want)).length === 0, { timeoutMs: long ? 600_000 : 180_000, intervalMs: 500 }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\nstill off: ${last.join('; ')}\nwant ${JSON.stringify(want)}`, { cause: err });
    });
    const settledMs = Date.now() - started - editedMs;
    await sampler.sampleOnce();
    await sampler.stop();

    const finalPods = (await podsOf(client).list({ namespace: ns, labelSelector: `app=${NAME}` })).items.map((p) => ({ name: p.metadata.name ?? '', uid: p.metadata.uid ?? '', labels: p.metadata.labels ?? {}, annotations: p.metadata.annotations ?? {} }));
    const lost = missingWrittenMarks(user.written, finalPods);
    const surviving = finalPods.reduce((n, p) => n + (user.written.get(p.uid)?.size ?? 0), 0);
    const managerConflicts = sumSamples(await env.manager.metrics(), 'rest_client_requests_total', { code: '409' });
    console.log(
      `[chaos-writers] seed ${seed}: ${schedule.length} edits in ${Math.round(editedMs / 1000)} s (${[...user.written.values()].reduce((n, m) => n + m.size, 0)} marks acknowledged on ${user.written.size} pods, ${user.deletes} pod deletes), ` +
        `settled ${Math.round(settledMs / 1000)} s later at ${JSON.stringify(want)}; conflicts retried: user ${user.conflicts}, manager ${managerConflicts}; ` +
        `${updatesOfMarkedPods} in-place updates of marked pods seen; ${surviving} written marks on the ${finalPods.length} final pods, ${lost.length} lost; sampler: ${sampler.summary()}`,
    );
    expect(sampler.violations).toEqual([]);
    expect(lost).toEqual([]);
    // The schedule ends by marking every pod, then an update the partition lets through: the check above was exercised.
    expect(updatesOfMarkedPods).toBeGreaterThan(0);
    expect(user.written.size).toBeGreaterThan(0);
    expect(env.manager.starts).toBe(1);
    expect(env.manager.pid).toBeDefined();
    expect(env.manager.unexpectedExits).toEqual([]); // never exited (and was restarted) on its own
  }, long ? 1_200_000 : 400_000);

  it('the sampler and the final check catch a writer dropping a user label (the guarantee broken on purpose)', async () => {
    const ns = env.namespace;
    const pods = (await podsOf(client).list({ namespace: ns, labelSelector: `app=${NAME}` })).items;
    const victim = pods.find((p) => Object.keys(p.metadata.labels ?? {}).some((k) => k.startsWith(USER_MARK_PREFIX))) ?? pods[0]!;
    const key = Object.keys(victim.metadata.labels ?? {}).find((k) => k.startsWith(USER_MARK_PREFIX)) ?? `${USER_MARK_PREFIX}sabotage`;
    if (!victim.metadata.labels?.[key]) {
      await podsOf(client).patch(ns, victim.metadata.name ?? '', mergePatch({ metadata: { labels: { [key]: 'x' } } }));
    }
    await sampler.sampleOnce();
    const before = sampler.violations.length;
    // A careless controller would do this: write the pod's labels without the user's.
    await podsOf(client).patch(ns, victim.metadata.name ?? '', mergePatch({ metadata: { labels: { [key]: null } } }));
    await sampler.sampleOnce();
    expect(sampler.violations.slice(before).map((v) => v.invariant)).toContain('user-mark-lost');
    const finalPods = (await podsOf(client).list({ namespace: ns, labelSelector: `app=${NAME}` })).items.map((p) => ({ name: p.metadata.name ?? '', uid: p.metadata.uid ?? '', labels: p.metadata.labels ?? {} }));
    const written = new Map([[victim.metadata.uid ?? '', new Map([[`label:${key}`, victim.metadata.labels?.[key] ?? 'x']])]]);
    expect(missingWrittenMarks(written, finalPods)).toHaveLength(1);
  });
});
