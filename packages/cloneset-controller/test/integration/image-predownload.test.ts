// Image pre-download (PreDownloadImageForInPlaceUpdate, only where the ImagePullJob CRD is served). We ship no node daemon, so this suite installs a
// minimal ImagePullJob CRD of its own (removed afterwards unless it was there before) and checks
// the jobs the controller writes: with the gate on, one job per changed image during a partial
// in-place rollout, deleted once the rollout completes; with the gate off, none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, getJson, kubectl } from '@cloneset-suite/local-cluster';
import { installCrds, startController, withNamespace, type RunningController } from './harness.ts';
import { apply, cloneSetManifest, getCloneSet, patchCloneSet, podsOf, revisionOf, sleep, waitNewRevision, waitSettled } from './rollout-kit.ts';

const CRD_NAME = 'imagepulljobs.apps.kruise.io';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME, labels: { 'cloneset-suite.io/test': 'image-predownload' } },
  spec: {
    group: 'apps.kruise.io',
    names: { kind: 'ImagePullJob', listKind: 'ImagePullJobList', plural: 'imagepulljobs', singular: 'imagepulljob' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

interface ImagePullJob {
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
  spec: {
    image: string;
    parallelism?: number;
    podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] };
    pullPolicy?: { timeoutSeconds?: number; backoffLimit?: number };
    completionPolicy?: { type?: string; ttlSecondsAfterFinished?: number };
  };
}

const jobsIn = async (ns: string): Promise<ImagePullJob[]> => (await getJson<{ items: ImagePullJob[] }>(['imagepulljobs.apps.kruise.io', '-n', ns]))?.items ?? [];
const revisionLabels = async (ns: string, name: string): Promise<Record<string, string>> =>
  (await getJson<{ metadata: { labels?: Record<string, string> } }>(['controllerrevision', name, '-n', ns]))?.metadata.labels ?? {};
const setImage = (ns: string, name: string, image: string) =>
  kubectl(['patch', 'clone', name, '-n', ns, '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: image }])]);

function manifest(name: string, annotations: Record<string, string>): Record<string, unknown> {
  const m = cloneSetManifest(name, { replicas: 5, updateStrategy: { type: 'InPlaceIfPossible', partition: 3, maxUnavailable: 1 } });
  return { ...m, metadata: { ...(m.metadata as Record<string, unknown>), annotations } };
}

/** Waits for a partial rollout: `updated` pods at the new revision and ready. */
async function waitPartial(ns: string, name: string, updated: number): Promise<void> {
  await eventually(
    `${name}: ${updated} pods updated and ready`,
    async () => {
      const s = (await getCloneSet(ns, name)).status;
      return s?.updatedReplicas === updated && s.updatedReadyReplicas === updated && s.readyReplicas === 5;
    },
    { timeoutMs: 45_000, intervalMs: 250 },
  );
}

describe('image pre-download', () => {
  let crdPreexisting = false;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    await installCrds();
    crdPreexisting = (await getJson(['crd', CRD_NAME])) !== undefined;
    if (!crdPreexisting) {
      await kubectl(['apply', '-f', '-'], JSON.stringify(CRD));
      await kubectl(['wait', '--for=condition=Established', `crd/${CRD_NAME}`, '--timeout=60s']);
    }
    // Established can precede discovery: the controller asks discovery, so wait for it too.
    await eventually('imagepulljobs in discovery', async () => (await kubectl(['get', '--raw', '/apis/apps.kruise.io/v1alpha1'])).includes('"imagepulljobs"'));
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    if (!crdPreexisting) await kubectl(['delete', 'crd', CRD_NAME, '--ignore-not-found', '--wait=true']);
  });

  async function setup(prefix: string, gate: boolean): Promise<{ ns: string; controller: RunningController }> {
    const { name: ns, remove } = await withNamespace(prefix);
    const controller = startController(ns, { featureGates: { PreDownloadImageForInPlaceUpdate: gate } });
    cleanups.push(remove, () => controller.stop());
    return { ns, controller };
  }

  it('gate on: one job per changed image for the old pods during a partial rollout, deleted when it completes', async () => {
    const { ns } = await setup('cs-predl-on', true);
    const NAME = 'predl';
    await apply(ns, manifest(NAME, { 'apps.kruise.io/image-predownload-parallelism': '3', 'apps.kruise.io/image-predownload-min-updated-ready-pods': '1' }));
    const cs = await waitSettled(ns, NAME, 5);
    const oldRevision = cs.status?.updateRevision ?? '';
    expect(await jobsIn(ns)).toEqual([]);

    await setImage(ns, NAME, 'nginx:1.25');
    const newRevision = await waitNewRevision(ns, NAME, oldRevision);
    await waitPartial(ns, NAME, 2);
    const jobs = await eventually('the ImagePullJob', async () => {
      const found = await jobsIn(ns);
      return found.length > 0 ? found : undefined;
    });
    expect(jobs.map((j) => j.metadata.name)).toEqual([`${newRevision}-main`]);
    const job = jobs[0]!;
    const hash = newRevision.slice(newRevision.lastIndexOf('-') + 1);
    expect(job.spec).toEqual({
      image: 'nginx:1.25',
      parallelism: 3,
      podSelector: {
        matchLabels: { app: NAME },
        matchExpressions: [{ key: 'controller-revision-hash', operator: 'NotIn', values: [newRevision, hash] }],
      },
      pullPolicy: { timeoutSeconds: 600, backoffLimit: 1 },
      completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
    });
    expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CloneSet', name: NAME, uid: cs.metadata.uid, controller: true })]);
    expect(job.metadata.labels).toMatchObject({ app: NAME, 'controller.kubernetes.io/hash': hash });
    // The selector picks exactly the old-revision pods.
    const pods = await podsOf(ns, NAME);
    expect(pods.filter((p) => revisionOf(p) !== newRevision)).toHaveLength(3);
    // The revision is marked once; the old one is untouched.
    expect(await revisionLabels(ns, newRevision)).toMatchObject({ 'apps.kruise.io/image-predownload-created': 'true' });
    expect(await revisionLabels(ns, oldRevision)).not.toHaveProperty('apps.kruise.io/image-predownload-created');
    const events = await getJson<{ items: { type: string; reason: string; note?: string; regarding?: { name?: string } }[] }>(['events.v1.events.k8s.io', '-n', ns]);
    const created = (events?.items ?? []).filter((e) => e.reason === 'CreatedImagePullJob' && e.regarding?.name === NAME);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ type: 'Normal', note: `created ImagePullJob ${newRevision}-main for image: nginx:1.25` });

    // Finish the rollout: current == update, the job goes.
    await patchCloneSet(ns, NAME, { spec: { updateStrategy: { partition: 0 } } });
    const done = await waitSettled(ns, NAME, 5);
    expect(done.status?.currentRevision).toBe(newRevision);
    await eventually('the ImagePullJob deleted', async () => (await jobsIn(ns)).length === 0);
  });

  it('gate off: no job, no revision mark', async () => {
    const { ns } = await setup('cs-predl-off', false);
    const NAME = 'predl';
    await apply(ns, manifest(NAME, {}));
    const oldRevision = (await waitSettled(ns, NAME, 5)).status?.updateRevision ?? '';
    await setImage(ns, NAME, 'nginx:1.25');
    const newRevision = await waitNewRevision(ns, NAME, oldRevision);
    await waitPartial(ns, NAME, 2);
    await sleep(1_500);
    expect(await jobsIn(ns)).toEqual([]);
    const labels = await revisionLabels(ns, newRevision);
    expect(labels).not.toHaveProperty('apps.kruise.io/image-predownload-created');
    expect(labels).not.toHaveProperty('apps.kruise.io/image-predownload-ignored');
  });
});
