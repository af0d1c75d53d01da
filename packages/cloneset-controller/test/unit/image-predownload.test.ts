// Image pre-download planner (OpenKruise's PreDownloadImageForInPlaceUpdate and its updateStrategy knobs): one table per rule.
import { describe, expect, it } from 'vitest';
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { buildContext, type PlanContext } from '../../src/core/context.ts';
import {
  IMAGE_PREDOWNLOAD_CREATED_LABEL,
  IMAGE_PREDOWNLOAD_IGNORED_LABEL,
  minUpdatedReadyPods,
  planImagePreDownload,
} from '../../src/core/predownload/image-predownload.ts';
import type { CreateImagePullJobAction, PreDownloadAction } from '../../src/core/plan.ts';
import { planReconcile } from '../../src/core/reconcile-plan.ts';
import type { FeatureGates } from '../../src/core/keys.ts';
import type { CloneSetLike, CloneSetSpecLike, CloneSetStatusLike } from '../../src/core/types.ts';
import { NOW, cloneSet, revision, seededRandom } from './fixtures.ts';

const ON: FeatureGates = { PreDownloadImageForInPlaceUpdate: true };
const twoContainers = (main: string, side: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: 'demo', tier: 'web' } },
  spec: { containers: [{ name: 'main', image: main, ...extra }, { name: 'side', image: side }] },
});

interface Case {
  spec?: Partial<CloneSetSpecLike>;
  annotations?: Record<string, string>;
  status?: CloneSetStatusLike;
  /** Template of the current (old) revision; the update revision holds the CloneSet's template. */
  oldTemplate?: unknown;
  /** Labels on the update revision. */
  updateLabels?: Record<string, string>;
  gates?: FeatureGates;
  settled?: boolean;
  deleting?: boolean;
}

const UPDATE = 'cs-7f8d9';

function ctxOf(c: Case = {}): PlanContext {
  const template = twoContainers('nginx:2', 'envoy:2');
  const spec: Partial<CloneSetSpecLike> = {
    replicas: 5,
    template,
    updateStrategy: { type: 'InPlaceIfPossible', partition: 3 },
    ...c.spec,
  };
  const cs: CloneSetLike = cloneSet(spec, {
    metadata: {
      name: 'cs',
      namespace: 'ns',
      uid: 'uid-cs',
      annotations: c.annotations,
      ...(c.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: c.status ?? { updateRevision: UPDATE, updatedReadyReplicas: 0 },
  });
  const oldRev = revision('cs-old11', 1, c.oldTemplate ?? twoContainers('nginx:1', 'envoy:1'));
  const newRev: V1ControllerRevision = revision(UPDATE, 2, cs.spec.template);
  newRev.metadata!.labels = { 'controller.kubernetes.io/hash': '7f8d9', ...(c.updateLabels ?? {}) };
  return buildContext({
    cs,
    gates: c.gates ?? ON,
    nowMs: NOW,
    random: seededRandom(1),
    pods: [],
    allPods: [],
    pvcs: [],
    revisions: [oldRev, newRev],
    currentRevision: c.settled ? newRev : oldRev,
    updateRevision: newRev,
  });
}

const plan = (c: Case = {}, crdPresent = true): PreDownloadAction[] => planImagePreDownload(ctxOf(c), { crdPresent });
const kinds = (a: PreDownloadAction[]) => a.map((x) => x.kind);
const jobs = (a: PreDownloadAction[]) => a.filter((x): x is CreateImagePullJobAction => x.kind === 'createImagePullJob');
const created = { kind: 'labelRevision', name: UPDATE, labels: { [IMAGE_PREDOWNLOAD_CREATED_LABEL]: 'true' }, reason: 'ImagePullJobsCreated' };
const ignored = (reason: string) => ({ kind: 'labelRevision', name: UPDATE, labels: { [IMAGE_PREDOWNLOAD_IGNORED_LABEL]: 'true' }, reason });

describe('planImagePreDownload: when it acts at all', () => {
  it.each<[string, Case, boolean, string[]]>([
    ['gate off', { gates: {} }, true, []],
    ['gate off, settled', { gates: {}, settled: true }, true, []],
    ['CRD absent', {}, false, []],
    ['CRD absent, settled', { settled: true }, false, []],
    ['CloneSet being deleted', { deleting: true }, true, []],
    ['gate on, CRD present, rollout under way', {}, true, ['createImagePullJob', 'createImagePullJob', 'labelRevision']],
  ])('%s', (_n, c, crd, expected) => {
    expect(kinds(plan(c, crd))).toEqual(expected);
  });
});

describe('planImagePreDownload: jobs (one per changed container image)', () => {
  it('names <updateRevision>-<container>, the new image, old-revision pods, defaults parallelism 1 and timeout 600', () => {
    const actions = plan();
    expect(actions.at(-1)).toEqual(created);
    const [main, side] = jobs(actions);
    expect(main?.name).toBe(`${UPDATE}-main`);
    expect(side?.name).toBe(`${UPDATE}-side`);
    expect(main?.job).toEqual({
      apiVersion: 'apps.kruise.io/v1alpha1',
      kind: 'ImagePullJob',
      metadata: {
        name: `${UPDATE}-main`,
        namespace: 'ns',
        labels: { app: 'demo', tier: 'web', 'controller.kubernetes.io/hash': '7f8d9' },
        ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'cs', uid: 'uid-cs', controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        image: 'nginx:2',
        podSelector: {
          matchLabels: { app: 'demo' },
          matchExpressions: [{ key: 'controller-revision-hash', operator: 'NotIn', values: [UPDATE, '7f8d9'] }],
        },
        parallelism: 1,
        pullPolicy: { timeoutSeconds: 600, backoffLimit: 1 },
        completionPolicy: { type: 'Always', ttlSecondsAfterFinished: 600 },
      },
    });
    expect(side?.job.spec.image).toBe('envoy:2');
  });

  it('only containers whose image changed', () => {
    const actions = plan({ oldTemplate: twoContainers('nginx:1', 'envoy:2') });
    expect(jobs(actions).map((j) => [j.name, j.image])).toEqual([[`${UPDATE}-main`, 'nginx:2']]);
  });

  it('a metadata-only change creates no job but still marks the revision created', () => {
    const actions = plan({ oldTemplate: { ...twoContainers('nginx:2', 'envoy:2'), metadata: { labels: { app: 'demo' } } } });
    expect(actions).toEqual([created]);
  });

  it('keeps the selector expressions and adds pull secrets from the template', () => {
    const template = { ...twoContainers('nginx:2', 'envoy:2'), spec: { ...twoContainers('nginx:2', 'envoy:2').spec, imagePullSecrets: [{ name: 'reg' }] } };
    const actions = plan({
      oldTemplate: { ...template, spec: { ...template.spec, containers: [{ name: 'main', image: 'nginx:1' }, { name: 'side', image: 'envoy:2' }] } },
      spec: { template, selector: { matchLabels: { app: 'demo' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } },
    });
    const job = jobs(actions)[0]!.job;
    expect(job.spec.pullSecrets).toEqual(['reg']);
    expect(job.spec.podSelector.matchExpressions).toEqual([
      { key: 'tier', operator: 'In', values: ['web'] },
      { key: 'controller-revision-hash', operator: 'NotIn', values: [UPDATE, '7f8d9'] },
    ]);
  });

  it.each<[string, Record<string, string>, number, number]>([
    ['defaults', {}, 1, 600],
    ['set', { 'apps.kruise.io/image-predownload-parallelism': '4', 'apps.kruise.io/image-predownload-timeout-seconds': '90' }, 4, 90],
    ['zero parallelism pauses the job', { 'apps.kruise.io/image-predownload-parallelism': '0' }, 0, 600],
    ['invalid values fall back', { 'apps.kruise.io/image-predownload-parallelism': 'lots', 'apps.kruise.io/image-predownload-timeout-seconds': '-5' }, 1, 600],
    ['a percentage parallelism is not an int', { 'apps.kruise.io/image-predownload-parallelism': '50%' }, 1, 600],
  ])('parallelism and timeout annotations: %s', (_n, annotations, parallelism, timeout) => {
    const job = jobs(plan({ annotations }))[0]!.job;
    expect(job.spec.parallelism).toBe(parallelism);
    expect(job.spec.pullPolicy.timeoutSeconds).toBe(timeout);
  });

  it('without the hash label the revision name suffix is used', () => {
    const ctx = ctxOf();
    ctx.updateRevision.metadata!.labels = {};
    const job = jobs(planImagePreDownload(ctx, { crdPresent: true }))[0]!.job;
    expect(job.spec.podSelector.matchExpressions?.at(-1)?.values).toEqual([UPDATE, '7f8d9']);
    expect(job.metadata.labels['controller.kubernetes.io/hash']).toBe('7f8d9');
  });
});

describe('planImagePreDownload: min-updated-ready-pods', () => {
  const ready = (n: number, rev = UPDATE): CloneSetStatusLike => ({ updateRevision: rev, updatedReadyReplicas: n });
  it.each<[string, string | undefined, CloneSetStatusLike, boolean]>([
    ['default 0: right away', undefined, ready(0), true],
    ['int, not reached', '2', ready(1), false],
    ['int, reached', '2', ready(2), true],
    ['percent of replicas rounded up (30% of 5 = 2), not reached', '30%', ready(1), false],
    ['percent reached', '30%', ready(2), true],
    ['status of another update revision counts as 0', '1', ready(5, 'cs-other'), false],
    ['invalid value counts as 0', 'many', ready(0), true],
  ])('%s', (_n, value, status, acts) => {
    const c: Case = { status, ...(value !== undefined ? { annotations: { 'apps.kruise.io/image-predownload-min-updated-ready-pods': value } } : {}) };
    expect(plan(c).length > 0).toBe(acts);
  });

  it.each<[string, number]>([
    ['3', 3],
    ['20%', 1],
    ['21%', 2],
    ['100%', 5],
  ])('resolves %s to %i of 5', (value, n) => {
    expect(minUpdatedReadyPods(ctxOf({ annotations: { 'apps.kruise.io/image-predownload-min-updated-ready-pods': value } }))).toBe(n);
  });
});

describe('planImagePreDownload: skipped (revision labelled ignored)', () => {
  it.each<[string, Case, string]>([
    ['ReCreate strategy', { spec: { updateStrategy: { type: 'ReCreate', partition: 3 } } }, 'ReCreate'],
    ['replicas 3', { spec: { replicas: 3 } }, 'TooFewReplicas'],
    ['replicas 1', { spec: { replicas: 1 } }, 'TooFewReplicas'],
    ['partition 0 and maxUnavailable ≥ replicas', { spec: { updateStrategy: { type: 'InPlaceIfPossible', partition: 0, maxUnavailable: 5 } } }, 'OneBatch'],
    ['partition unset and maxUnavailable 100%', { spec: { updateStrategy: { type: 'InPlaceIfPossible', maxUnavailable: '100%' } } }, 'OneBatch'],
    ['env change is not in-place-able', { oldTemplate: twoContainers('nginx:1', 'envoy:1', { env: [{ name: 'A', value: 'b' }] }) }, 'NotInPlace'],
    ['container added is not in-place-able', { oldTemplate: { metadata: { labels: { app: 'demo', tier: 'web' } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }] } } }, 'NotInPlace'],
  ])('%s', (_n, c, reason) => {
    expect(plan(c)).toEqual([ignored(reason)]);
  });

  it.each<[string, Case]>([
    ['replicas 4', { spec: { replicas: 4 } }],
    ['partition 0, maxUnavailable below replicas', { spec: { updateStrategy: { type: 'InPlaceIfPossible', partition: 0, maxUnavailable: 4 } } }],
    ['partition 1, maxUnavailable = replicas', { spec: { updateStrategy: { type: 'InPlaceIfPossible', partition: 1, maxUnavailable: 5 } } }],
    ['InPlaceOnly', { spec: { updateStrategy: { type: 'InPlaceOnly', partition: 2 } } }],
  ])('not skipped: %s', (_n, c) => {
    expect(plan(c).at(-1)).toEqual(created);
  });

  it('a skipped revision is marked only once min-updated-ready-pods is reached', () => {
    const c: Case = { spec: { updateStrategy: { type: 'ReCreate' } }, annotations: { 'apps.kruise.io/image-predownload-min-updated-ready-pods': '2' } };
    expect(plan(c)).toEqual([]);
  });
});

describe('planImagePreDownload: each revision handled once', () => {
  it.each<[string, Record<string, string>]>([
    ['already created', { [IMAGE_PREDOWNLOAD_CREATED_LABEL]: 'true' }],
    ['already ignored', { [IMAGE_PREDOWNLOAD_IGNORED_LABEL]: 'true' }],
    ['any value of the label counts', { [IMAGE_PREDOWNLOAD_CREATED_LABEL]: '' }],
  ])('%s: nothing', (_n, updateLabels) => {
    expect(plan({ updateLabels })).toEqual([]);
  });
});

describe('planImagePreDownload: clean-up once current == update', () => {
  // Named from the kept revisions, so the shell deletes by name and never lists jobs in a reconcile.
  const names = ['cs-old11-main', 'cs-old11-side', `${UPDATE}-main`, `${UPDATE}-side`];
  it('deletes the jobs every kept revision may have had, by name', () => {
    expect(plan({ settled: true })).toEqual([{ kind: 'deleteImagePullJobs', revision: UPDATE, names }]);
  });
  it('whether or not the revision was marked (a failed label write must not leave jobs behind)', () => {
    expect(plan({ settled: true, updateLabels: { [IMAGE_PREDOWNLOAD_CREATED_LABEL]: 'true' } })).toEqual([{ kind: 'deleteImagePullJobs', revision: UPDATE, names }]);
  });
});

describe('planReconcile wiring', () => {
  const base = () => {
    const cs = cloneSet({ replicas: 5, template: twoContainers('nginx:2', 'envoy:2'), updateStrategy: { type: 'InPlaceIfPossible', partition: 3 } });
    return { cs, oldRev: revision('cs-old11', 1, twoContainers('nginx:1', 'envoy:1')) };
  };
  const input = (cs: CloneSetLike, revisions: V1ControllerRevision[], crd: boolean, gates: FeatureGates = ON) => ({
    cs,
    pods: [],
    pvcs: [],
    revisions,
    gates,
    nowMs: NOW,
    random: seededRandom(1),
    imagePullJobCrdPresent: crd,
  });
  const preDownloadKinds = (cs: CloneSetLike, revisions: V1ControllerRevision[], crd: boolean, gates?: FeatureGates) =>
    planReconcile(input(cs, revisions, crd, gates)).actions
      .map((a) => a.kind)
      .filter((k) => ['createImagePullJob', 'labelRevision', 'deleteImagePullJobs'].includes(k));

  it('a revision created in this pass waits for the next one', () => {
    const { cs, oldRev } = base();
    cs.status = { currentRevision: 'cs-old11', updateRevision: 'cs-old11' };
    expect(preDownloadKinds(cs, [oldRev], true)).toEqual([]);
  });

  it('with the update revision in place: jobs then the mark, before any pod action', () => {
    const { cs, oldRev } = base();
    const first = planReconcile(input({ ...cs, status: { currentRevision: 'cs-old11', updateRevision: 'cs-old11' } }, [oldRev], true));
    const newRev = first.actions.flatMap((a) => (a.kind === 'createRevision' ? [a.revision] : []))[0];
    if (!newRev) throw new Error('expected a createRevision action');
    cs.status = { currentRevision: 'cs-old11', updateRevision: newRev.metadata?.name ?? '', updatedReadyReplicas: 0 };
    const actions = planReconcile(input(cs, [oldRev, newRev], true)).actions;
    expect(actions.slice(0, 3).map((a) => a.kind)).toEqual(['createImagePullJob', 'createImagePullJob', 'labelRevision']);
    expect(preDownloadKinds(cs, [oldRev, newRev], false)).toEqual([]);
    expect(preDownloadKinds(cs, [oldRev, newRev], true, {})).toEqual([]);
  });
});
