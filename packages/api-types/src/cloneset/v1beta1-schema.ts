// CloneSet as apps.kruise.io/v1beta1 serves it (OpenKruise's next API version): the same object
// with the update knobs under updateStrategy.rollingUpdate, PVC reuse as an opt-in
// (enablePVCReuse, default false), excludePreparingDelete and the image pre-download knobs as
// fields. Served beside v1alpha1, which stays the storage version; conversion/ maps the two.
import type { Static } from 'typebox';
import { resourceSchema, type GroupVersionKind } from '../meta.ts';
import { Type, bool, int32, intOrString, stringEnum } from '../schema-kit.ts';
import {
  CLONESET_GVK,
  CloneSetStatusSchema,
  INT_PERCENT_PATTERN,
  InPlaceUpdateStrategySchema,
  cloneSetSpecCommonFields,
  cloneSetSpecRules,
  rollingUpdateKnobFields,
  scaleStrategyCommonFields,
} from './schema.ts';

export const CLONESET_V1BETA1_GVK = {
  ...CLONESET_GVK,
  version: 'v1beta1',
  apiVersion: 'apps.kruise.io/v1beta1',
} as const satisfies GroupVersionKind;

export const CLONESET_V1BETA1_UPDATE_STRATEGY_TYPES = ['RollingUpdate', 'OnDelete'] as const;
export type CloneSetV1beta1UpdateStrategyType = (typeof CLONESET_V1BETA1_UPDATE_STRATEGY_TYPES)[number];

export const CLONESET_POD_UPDATE_POLICIES = ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly'] as const;
export type CloneSetPodUpdatePolicy = (typeof CLONESET_POD_UPDATE_POLICIES)[number];

export const CloneSetV1beta1ScaleStrategySchema = Type.Object(
  {
    ...scaleStrategyCommonFields,
    enablePVCReuse: Type.Optional(
      bool({ description: 'Reuse the PVCs of vanished pods for new pods (default false: they are deleted).', default: false }),
    ),
    excludePreparingDelete: Type.Optional(
      bool({ description: 'Leave pods in PreparingDelete out of the replica count.' }),
    ),
  },
  // An object by default, so that enablePVCReuse is always written out (false unless set).
  { description: 'How the CloneSet scales.', default: {} },
);
export type CloneSetV1beta1ScaleStrategy = Static<typeof CloneSetV1beta1ScaleStrategySchema>;

export const InPlaceUpdateStrategyV1beta1Schema = Type.Object(
  {
    ...InPlaceUpdateStrategySchema.properties,
    imagePreDownloadParallelism: Type.Optional(
      intOrString({
        description: 'Nodes pulling the new images at once (default 1; 0 pauses). v1alpha1: annotation apps.kruise.io/image-predownload-parallelism.',
        minimum: 0,
        pattern: INT_PERCENT_PATTERN,
      }),
    ),
    imagePreDownloadTimeoutSeconds: Type.Optional(
      int32({
        description: 'Timeout of one image pull (default 600). v1alpha1: annotation apps.kruise.io/image-predownload-timeout-seconds.',
        minimum: 0,
      }),
    ),
    imagePreDownloadMinUpdatedReadyPods: Type.Optional(
      int32({
        description: 'Updated ready pods needed before images are pre-downloaded for the next ones. v1alpha1: annotation apps.kruise.io/image-predownload-min-updated-ready-pods.',
        minimum: 0,
      }),
    ),
  },
  { description: 'Options of in-place update, image pre-download included.' },
);
export type InPlaceUpdateStrategyV1beta1 = Static<typeof InPlaceUpdateStrategyV1beta1Schema>;

export const RollingUpdateCloneSetStrategySchema = Type.Object(
  {
    podUpdatePolicy: Type.Optional(
      stringEnum(CLONESET_POD_UPDATE_POLICIES, {
        description: 'How a pod moves to a new revision: ReCreate (default), InPlaceIfPossible or InPlaceOnly.',
      }),
    ),
    ...rollingUpdateKnobFields,
    inPlaceUpdateStrategy: Type.Optional(InPlaceUpdateStrategyV1beta1Schema),
  },
  { description: 'How a rolling update proceeds.' },
);
export type RollingUpdateCloneSetStrategy = Static<typeof RollingUpdateCloneSetStrategySchema>;

export const CloneSetV1beta1UpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      stringEnum(CLONESET_V1BETA1_UPDATE_STRATEGY_TYPES, {
        description: 'RollingUpdate (default): pods move as rollingUpdate says; OnDelete: only when a pod is deleted.',
      }),
    ),
    rollingUpdate: Type.Optional(RollingUpdateCloneSetStrategySchema),
  },
  { description: 'How pods move to a new revision.' },
);
export type CloneSetV1beta1UpdateStrategy = Static<typeof CloneSetV1beta1UpdateStrategySchema>;

export const CloneSetV1beta1SpecSchema = Type.Object(
  {
    ...cloneSetSpecCommonFields,
    scaleStrategy: Type.Optional(CloneSetV1beta1ScaleStrategySchema),
    updateStrategy: Type.Optional(CloneSetV1beta1UpdateStrategySchema),
  },
  {
    description: 'Desired state of a CloneSet.',
    'x-kubernetes-validations': cloneSetSpecRules({
      guards: ['self.updateStrategy', 'self.updateStrategy.rollingUpdate'],
      at: 'self.updateStrategy.rollingUpdate',
      podUpdateField: 'podUpdatePolicy',
      fieldPath: '.updateStrategy.rollingUpdate',
    }),
  },
);
export type CloneSetV1beta1Spec = Static<typeof CloneSetV1beta1SpecSchema>;

export const CloneSetV1beta1Schema = resourceSchema(CloneSetV1beta1SpecSchema, CloneSetStatusSchema, 'CloneSet manages a set of identical pods, with in-place update, partition, surge and lifecycle hooks.');
export type CloneSetV1beta1 = Static<typeof CloneSetV1beta1Schema>;
