// fast-check generators of CloneSets as the apiserver holds them, in both served versions: every
// field of the strategy part in every form the schema allows (absent, explicit default, set),
// plus metadata and status that conversion must carry over untouched. Metadata maps are never
// empty (the apiserver stores none) and never hold the conversion's own annotations.
import fc from 'fast-check';
import { KRUISE_ANNOTATIONS, KRUISE_LABELS } from '../../src/index.ts';

type Json = Record<string, unknown>;

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 });

/** An object without the keys whose value is undefined. */
function compact(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const count = fc.integer({ min: 0, max: 20 });
const percent = fc.integer({ min: 0, max: 100 }).map((n) => `${n}%`);
const intOrPercent = fc.oneof(count, percent);
const partition = fc.oneof(count, percent, fc.constantFrom('12.5%', '99.9%'));
const labelValue = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,8}[a-z0-9])?$/);
const labelKey = fc.oneof(fc.stringMatching(/^[a-z]{1,8}$/), fc.constantFrom('app', 'example.com/tier', 'apps.kruise.io/other'));

const EXCLUDE = KRUISE_LABELS.scalingExcludePreparingDelete;
const PREDOWNLOAD = [
  KRUISE_ANNOTATIONS.imagePreDownloadParallelism,
  KRUISE_ANNOTATIONS.imagePreDownloadTimeoutSeconds,
  KRUISE_ANNOTATIONS.imagePreDownloadMinUpdatedReadyPods,
];

/** Annotation texts: what v1beta1 can hold as a field, and what it cannot ("05", "50%" for an int, junk). */
const preDownloadText = fc.oneof(count.map(String), percent, fc.constantFrom('05', '-1', 'abc', '', '2147483648', '1.5'));

function metadata(extraLabels: fc.Arbitrary<Json>, extraAnnotations: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  return fc
    .record({
      name: fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/),
      namespace: fc.constantFrom('default', 'team-a'),
      uid: fc.uuid(),
      resourceVersion: fc.integer({ min: 1, max: 99999 }).map(String),
      generation: fc.integer({ min: 1, max: 50 }),
      labels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
      annotations: fc.dictionary(fc.constantFrom('note', 'example.com/owner', 'kubectl.kubernetes.io/last-applied-configuration'), fc.string({ maxLength: 12 }), { maxKeys: 2 }),
      extraLabels,
      extraAnnotations,
      finalizers: optional(fc.constant(['example.com/keep'])),
    })
    .map(({ labels, annotations, extraLabels: l, extraAnnotations: a, ...rest }) => {
      const allLabels = { ...labels, ...l };
      const allAnnotations = { ...annotations, ...a };
      return compact({
        ...rest,
        labels: Object.keys(allLabels).length > 0 ? allLabels : undefined,
        annotations: Object.keys(allAnnotations).length > 0 ? allAnnotations : undefined,
      });
    });
}

const excludeLabel: fc.Arbitrary<Json> = fc.oneof(fc.constant({}), fc.constantFrom('true', 'false', 'yes').map((v) => ({ [EXCLUDE]: v })));
const preDownloadAnnotations: fc.Arbitrary<Json> = fc
  .tuple(...PREDOWNLOAD.map(() => optional(preDownloadText)))
  .map((values) => compact(Object.fromEntries(PREDOWNLOAD.map((k, i) => [k, values[i]]))));

const template = fc.record({
  metadata: fc.record({ labels: fc.constant({ app: 'sample' }) }),
  spec: fc.record({
    containers: fc.array(fc.record({ name: fc.constantFrom('main', 'sidecar'), image: fc.constantFrom('nginx:1.25', 'nginx:1.27') }), { minLength: 1, maxLength: 2 }),
  }),
});

const lifecycle = optional(fc.record({ preDelete: fc.record({ finalizersHandler: fc.constant(['example.com/hold']) }) }));
const priorityStrategy = fc.oneof(
  fc.record({ weightPriority: fc.constant([{ weight: 50, matchSelector: { matchLabels: { tier: 'a' } } }]) }),
  fc.record({ orderPriority: fc.constant([{ orderedKey: 'order' }]) }),
);
const scatterStrategy = fc.array(fc.record({ key: labelKey, value: labelValue }), { maxLength: 2 });
const gracePeriod = optional(fc.integer({ min: 0, max: 30 }));

/** The knobs both versions have, as one object (v1alpha1 at updateStrategy, v1beta1 under rollingUpdate). */
const knobs = fc
  .record({
    partition: optional(partition),
    maxUnavailable: optional(intOrPercent),
    maxSurge: optional(intOrPercent),
    paused: optional(fc.boolean()),
    priorityStrategy: optional(priorityStrategy),
    scatterStrategy: optional(scatterStrategy),
  })
  .map(compact);

const status = optional(
  fc.record({
    observedGeneration: fc.integer({ min: 1, max: 50 }),
    replicas: count,
    readyReplicas: count,
    availableReplicas: count,
    updatedReplicas: count,
    updatedReadyReplicas: count,
    updatedAvailableReplicas: count,
    expectedUpdatedReplicas: count,
    updateRevision: fc.constant('sample-5d7fbb5b8'),
    currentRevision: fc.constant('sample-5d7fbb5b8'),
    collisionCount: optional(fc.integer({ min: 0, max: 2 })),
    labelSelector: fc.constant('app=sample'),
    conditions: optional(fc.constant([{ type: 'Progressing', status: 'True', reason: 'CloneSetAvailable', lastUpdateTime: '2026-01-02T03:04:05Z' }])),
  }).map(compact),
);

function cloneSet(apiVersion: string, meta: fc.Arbitrary<Json>, scaleStrategy: fc.Arbitrary<unknown>, updateStrategy: fc.Arbitrary<unknown>): fc.Arbitrary<Json> {
  return fc
    .record({
      metadata: meta,
      replicas: optional(count),
      revisionHistoryLimit: optional(fc.integer({ min: 0, max: 10 })),
      minReadySeconds: optional(fc.integer({ min: 0, max: 30 })),
      progressDeadlineSeconds: optional(fc.integer({ min: 31, max: 600 })),
      template,
      volumeClaimTemplates: optional(fc.constant([{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }])),
      lifecycle,
      scaleStrategy,
      updateStrategy,
      status,
    })
    .map(({ metadata: m, status: st, ...spec }) =>
      compact({ apiVersion, kind: 'CloneSet', metadata: m, spec: compact({ selector: { matchLabels: { app: 'sample' } }, ...spec }), status: st }),
    );
}

const pvcCommon = fc.record({ podsToDelete: optional(fc.constant(['sample-abcde'])), maxUnavailable: optional(intOrPercent) }).map(compact);

/** v1alpha1 CloneSets in every form the schema allows. */
export const v1alpha1CloneSet: fc.Arbitrary<Json> = cloneSet(
  'apps.kruise.io/v1alpha1',
  metadata(excludeLabel, preDownloadAnnotations),
  optional(fc.record({ common: pvcCommon, disablePVCReuse: optional(fc.boolean()) }).map(({ common, disablePVCReuse }) => compact({ ...common, disablePVCReuse }))),
  optional(
    fc
      .record({
        type: optional(fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'OnDelete')),
        knobs,
        inPlaceUpdateStrategy: optional(fc.record({ gracePeriodSeconds: gracePeriod }).map(compact)),
      })
      .map(({ knobs: k, ...rest }) => compact({ ...rest, ...k })),
  ),
);

const preDownloadField = {
  imagePreDownloadParallelism: optional(intOrPercent),
  imagePreDownloadTimeoutSeconds: optional(fc.integer({ min: 0, max: 1200 })),
  imagePreDownloadMinUpdatedReadyPods: optional(count),
};

/** v1beta1 CloneSets in every form the schema allows (the metadata may still hold v1alpha1's label and annotations). */
export const v1beta1CloneSet: fc.Arbitrary<Json> = cloneSet(
  'apps.kruise.io/v1beta1',
  metadata(excludeLabel, preDownloadAnnotations),
  optional(
    fc
      .record({ common: pvcCommon, enablePVCReuse: optional(fc.boolean()), excludePreparingDelete: optional(fc.boolean()) })
      .map(({ common, ...rest }) => compact({ ...common, ...rest })),
  ),
  optional(
    fc
      .record({
        type: optional(fc.constantFrom('RollingUpdate', 'OnDelete')),
        rollingUpdate: optional(
          fc
            .record({
              podUpdatePolicy: optional(fc.constantFrom('ReCreate', 'InPlaceIfPossible', 'InPlaceOnly')),
              knobs,
              inPlaceUpdateStrategy: optional(fc.record({ gracePeriodSeconds: gracePeriod, ...preDownloadField }).map(compact)),
            })
            .map(({ knobs: k, ...rest }) => compact({ ...rest, ...k })),
        ),
      })
      .map(compact),
  ),
);

/** Any JSON where the strategy fields and the spec go: conversion must neither throw nor lose a byte. */
export function anyShapedCloneSet(apiVersion: string): fc.Arbitrary<Json> {
  const junk = fc.jsonValue({ maxDepth: 3 });
  const strategyLike = fc.oneof(junk, fc.dictionary(fc.constantFrom('type', 'rollingUpdate', 'partition', 'inPlaceUpdateStrategy', 'enablePVCReuse', 'disablePVCReuse', 'excludePreparingDelete', 'podUpdatePolicy', 'x'), junk, { maxKeys: 4 }));
  return fc
    .record({
      metadata: metadata(excludeLabel, preDownloadAnnotations),
      spec: fc.oneof({ arbitrary: fc.record({ scaleStrategy: optional(strategyLike), updateStrategy: optional(strategyLike), other: optional(junk) }).map(compact), weight: 8 }, { arbitrary: junk, weight: 1 }),
    })
    .map(({ metadata: m, spec }) => ({ apiVersion, kind: 'CloneSet', metadata: m, spec }));
}
