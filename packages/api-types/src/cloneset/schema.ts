// CloneSet (apps.kruise.io/v1alpha1): the one schema from which both the TypeScript types and
// the CRD's openAPIV3Schema come. Rules the apiserver can enforce live here (bounds, enums,
// percent patterns, CEL); the rest (pod-template core validation, pod lookups) is in validation.ts.
import type { V1PersistentVolumeClaim, V1PodTemplateSpec } from '@kubernetes/client-node';
import type { Static } from 'typebox';
import { labelSelectorSchema, resourceSchema, type GroupVersionKind } from '../meta.ts';
import { Type, bool, int32, int64, intOrString, labelMap, list, preserved, str, stringEnum, type CelRule } from '../schema-kit.ts';

export const CLONESET_GVK = {
  group: 'apps.kruise.io',
  version: 'v1alpha1',
  kind: 'CloneSet',
  listKind: 'CloneSetList',
  plural: 'clonesets',
  singular: 'cloneset',
  shortNames: ['clone'],
  apiVersion: 'apps.kruise.io/v1alpha1',
} as const satisfies GroupVersionKind;

export const CLONESET_UPDATE_STRATEGY_TYPES = ['ReCreate', 'InPlaceIfPossible', 'InPlaceOnly', 'OnDelete'] as const;
export type CloneSetUpdateStrategyType = (typeof CLONESET_UPDATE_STRATEGY_TYPES)[number];

export const CLONESET_CONDITION_TYPES = ['FailedScale', 'FailedUpdate', 'Progressing'] as const;
export type CloneSetConditionType = (typeof CLONESET_CONDITION_TYPES)[number];

export const CONDITION_STATUSES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUSES)[number];

// Bounds that only exist so the apiserver accepts the CEL rules' cost estimates; far above any
// real CloneSet (kruise itself sets none).
export const MAX_SELECTOR_LABELS = 1024;
export const MAX_PRIORITY_TERMS = 1024;

/** Largest int32: the "no deadline" value of progressDeadlineSeconds. */
export const MAX_INT32 = 2147483647;

/** Integer or `"<int>%"` (v1.8 parses only integer percentages for surge/unavailable). */
export const INT_PERCENT_PATTERN = '^[0-9]+%$';
/** Integer or `"<float>%"`: partition is parsed as a float. */
export const DECIMAL_PERCENT_PATTERN = '^[0-9]+(\\.[0-9]+)?%$';

// CEL helper: an int-or-percent that resolves to 0 for any replica count.
const isZero = (path: string): string => `(type(${path}) == int ? ${path} == 0 : ${path}.matches('^0+%$'))`;

export const LifecycleHookSchema = Type.Object(
  {
    labelsHandler: Type.Optional(labelMap({ description: 'Labels whose k=v presence holds the pod in the hook.' })),
    finalizersHandler: Type.Optional(
      list(str(), { description: 'Finalizers whose presence holds the pod in the hook.' }),
    ),
    markPodNotReady: Type.Optional(
      bool({ description: 'Set the KruisePodReady condition False while the pod waits (preDelete, inPlaceUpdate).' }),
    ),
  },
  { description: 'A lifecycle hook: the pod is held while it carries any of these labels or finalizers.' },
);
export type LifecycleHook = Static<typeof LifecycleHookSchema>;

export const LifecycleSchema = Type.Object(
  {
    preDelete: Type.Optional(LifecycleHookSchema),
    inPlaceUpdate: Type.Optional(LifecycleHookSchema),
    preNormal: Type.Optional(LifecycleHookSchema),
  },
  { description: 'Hooks around deletion and in-place update of pods.' },
);
export type Lifecycle = Static<typeof LifecycleSchema>;

/** Scale-strategy fields every served version has in the same place and shape. */
export const scaleStrategyCommonFields = {
  podsToDelete: Type.Optional(
    list(str({ minLength: 1 }), {
      description: 'Names of pods to delete first; the controller prunes names of pods that are gone.',
      'x-kubernetes-list-type': 'set',
    }),
  ),
  maxUnavailable: Type.Optional(
    intOrString({
      description: 'Limits scale-out to this many unavailable pods (int or integer percent of replicas, rounded up). Unset: no limit.',
      minimum: 0,
      pattern: INT_PERCENT_PATTERN,
    }),
  ),
};

export const CloneSetScaleStrategySchema = Type.Object(
  {
    ...scaleStrategyCommonFields,
    disablePVCReuse: Type.Optional(
      bool({ description: 'Delete the PVCs of vanished pods instead of reusing them for new pods.' }),
    ),
  },
  { description: 'How the CloneSet scales.' },
);
export type CloneSetScaleStrategy = Static<typeof CloneSetScaleStrategySchema>;

export const nonEmptySelectorRule = {
  rule: '(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)',
  message: 'empty selector is invalid',
};

export const UpdatePriorityWeightTermSchema = Type.Object({
  weight: int32({ description: 'Weight in 0..100, summed over the terms a pod matches.', minimum: 0, maximum: 100 }),
  matchSelector: labelSelectorSchema('Pods matching this selector get the weight.', { rules: [nonEmptySelectorRule] }),
});
export type UpdatePriorityWeightTerm = Static<typeof UpdatePriorityWeightTermSchema>;

export const UpdatePriorityOrderTermSchema = Type.Object({
  orderedKey: str({ description: 'Label key whose value ends in an integer; higher updates first.', minLength: 1 }),
});
export type UpdatePriorityOrderTerm = Static<typeof UpdatePriorityOrderTermSchema>;

export const UpdatePriorityStrategySchema = Type.Object(
  {
    weightPriority: Type.Optional(list(UpdatePriorityWeightTermSchema, { maxItems: MAX_PRIORITY_TERMS })),
    orderPriority: Type.Optional(list(UpdatePriorityOrderTermSchema, { maxItems: MAX_PRIORITY_TERMS })),
  },
  {
    description: 'Order of pod updates by weight or by label order; only one of the two.',
    'x-kubernetes-validations': [
      {
        rule: '!(has(self.weightPriority) && size(self.weightPriority) > 0 && has(self.orderPriority) && size(self.orderPriority) > 0)',
        message: 'weightPriority and orderPriority cannot be set at the same time',
      },
    ],
  },
);
export type UpdatePriorityStrategy = Static<typeof UpdatePriorityStrategySchema>;

export const UpdateScatterTermSchema = Type.Object({
  key: str({ minLength: 1 }),
  value: str(),
});
export type UpdateScatterTerm = Static<typeof UpdateScatterTermSchema>;

export const InPlaceUpdateStrategySchema = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      int32({ description: 'Seconds between marking a pod not-ready and updating it in place.', minimum: 0 }),
    ),
  },
  { description: 'Options of in-place update.' },
);
export type InPlaceUpdateStrategy = Static<typeof InPlaceUpdateStrategySchema>;

/** The rolling-update knobs every served version has (v1alpha1 at updateStrategy, v1beta1 under rollingUpdate). */
export const rollingUpdateKnobFields = {
  partition: Type.Optional(
    intOrString({
      description: 'Number or percent of pods to keep at the old revision (default 0). A percent is rounded up; with replicas > 1 and a percent below 100% at least one pod is updated.',
      minimum: 0,
      pattern: DECIMAL_PERCENT_PATTERN,
    }),
  ),
  maxUnavailable: Type.Optional(
    intOrString({
      description: 'Maximum unavailable pods during update and specified deletion (default 20%).',
      minimum: 0,
      pattern: INT_PERCENT_PATTERN,
    }),
  ),
  maxSurge: Type.Optional(
    intOrString({
      description: 'Pods allowed above replicas during update and specified deletion (default 0). Not allowed with InPlaceOnly.',
      minimum: 0,
      pattern: INT_PERCENT_PATTERN,
    }),
  ),
  paused: Type.Optional(bool({ description: 'Stop updating pods; scaling goes on.' })),
  priorityStrategy: Type.Optional(UpdatePriorityStrategySchema),
  scatterStrategy: Type.Optional(
    list(UpdateScatterTermSchema, {
      description: 'Spread pods carrying key=value evenly through the update order.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key', 'value'],
    }),
  ),
};

export const CloneSetUpdateStrategySchema = Type.Object(
  {
    type: Type.Optional(
      stringEnum(CLONESET_UPDATE_STRATEGY_TYPES, {
        description: 'How a pod moves to a new revision: ReCreate (default), InPlaceIfPossible, InPlaceOnly, or OnDelete (only when the pod is deleted).',
      }),
    ),
    ...rollingUpdateKnobFields,
    inPlaceUpdateStrategy: Type.Optional(InPlaceUpdateStrategySchema),
  },
  { description: 'How pods move to a new revision.' },
);
export type CloneSetUpdateStrategy = Static<typeof CloneSetUpdateStrategySchema>;

export const PodTemplateSchema = preserved<V1PodTemplateSpec>({
  description: 'The pod template (validated by the admission webhook; kept as given).',
  properties: {
    metadata: preserved({
      properties: { labels: labelMap() },
    }),
    spec: preserved({
      properties: {
        restartPolicy: stringEnum(['Always'], { description: 'Only Always is supported in a CloneSet.' }),
        activeDeadlineSeconds: int64(),
      },
      'x-kubernetes-validations': [
        {
          rule: '!has(self.activeDeadlineSeconds)',
          message: 'activeDeadlineSeconds in cloneset is not Supported',
          fieldPath: '.activeDeadlineSeconds',
          reason: 'FieldValueForbidden',
        },
      ],
    }),
  },
});

/** The spec fields every served version has in the same place and shape. */
export const cloneSetSpecCommonFields = {
  replicas: Type.Optional(int32({ description: 'Desired number of pods (default 1).', minimum: 0 })),
  selector: labelSelectorSchema('Label query over pods; must match the template labels. Immutable.', {
    rules: [
      { ...nonEmptySelectorRule, message: 'empty selector is invalid for cloneset' },
      { rule: 'self == oldSelf', message: 'spec.selector is immutable' },
    ],
    maxMatchLabels: MAX_SELECTOR_LABELS,
  }),
  template: PodTemplateSchema,
  volumeClaimTemplates: Type.Optional(
    list(preserved<V1PersistentVolumeClaim>(), {
      description: 'PVC templates: one PVC per template per pod, sharing the pod instance id.',
    }),
  ),
  revisionHistoryLimit: Type.Optional(int32({ description: 'Non-live ControllerRevisions to keep (default 10).', minimum: 0 })),
  minReadySeconds: Type.Optional(int32({ description: 'Seconds a pod must be ready before it counts as available.', minimum: 0 })),
  lifecycle: Type.Optional(LifecycleSchema),
  progressDeadlineSeconds: Type.Optional(
    int32({
      description: 'Seconds a rollout may take before the Progressing condition turns False. Greater than minReadySeconds.',
      minimum: 0,
    }),
  ),
};

/** Where a served version keeps the rolling-update knobs, for the spec's CEL rules. */
export interface RollingKnobsPlace {
  /** Objects that must exist for the knobs to be set, outermost first (`has()` guards). */
  guards: readonly string[];
  /** CEL path of the object holding maxSurge and maxUnavailable. */
  at: string;
  /** Field of that object naming how pods are updated (InPlaceOnly forbids surge). */
  podUpdateField: string;
  /** fieldPath of the knobs' object, relative to spec. */
  fieldPath: string;
}

/** The spec's cross-field CEL rules, with the rolling-update knobs where `place` says. */
export function cloneSetSpecRules(place: RollingKnobsPlace): CelRule[] {
  const unguarded = place.guards.map((g) => `!has(${g})`).join(' || ');
  const field = (name: string): string => `${place.at}.${name}`;
  return [
    {
      rule:
        '!has(self.selector.matchLabels) || size(self.selector.matchLabels) == 0 || (has(self.template.metadata) && has(self.template.metadata.labels) && self.selector.matchLabels.all(k, k in self.template.metadata.labels && self.template.metadata.labels[k] == self.selector.matchLabels[k]))',
      message: '`selector` does not match template `labels`',
      fieldPath: '.template.metadata.labels',
    },
    {
      rule:
        `${unguarded} || !has(${field(place.podUpdateField)}) || ${field(place.podUpdateField)} != 'InPlaceOnly' || !has(${field('maxSurge')}) || (has(self.replicas) && self.replicas == 0) || ` +
        isZero(field('maxSurge')),
      message: 'can not use maxSurge with strategy type InPlaceOnly',
      fieldPath: `${place.fieldPath}.maxSurge`,
    },
    {
      rule:
        `(has(self.replicas) && self.replicas == 0) || ${unguarded} || !has(${field('maxUnavailable')}) || !` +
        isZero(field('maxUnavailable')) +
        ` || (has(${field('maxSurge')}) && !` +
        isZero(field('maxSurge')) +
        ')',
      message: 'maxUnavailable and maxSurge should not both be less than 1',
      fieldPath: `${place.fieldPath}.maxUnavailable`,
    },
    {
      rule: `!has(self.progressDeadlineSeconds) || self.progressDeadlineSeconds == ${MAX_INT32} || self.progressDeadlineSeconds > (has(self.minReadySeconds) ? self.minReadySeconds : 0)`,
      message: 'must be greater than minReadySeconds',
      fieldPath: '.progressDeadlineSeconds',
    },
  ];
}

export const CloneSetSpecSchema = Type.Object(
  {
    ...cloneSetSpecCommonFields,
    scaleStrategy: Type.Optional(CloneSetScaleStrategySchema),
    updateStrategy: Type.Optional(CloneSetUpdateStrategySchema),
  },
  {
    description: 'Desired state of a CloneSet.',
    'x-kubernetes-validations': cloneSetSpecRules({
      guards: ['self.updateStrategy'],
      at: 'self.updateStrategy',
      podUpdateField: 'type',
      fieldPath: '.updateStrategy',
    }),
  },
);
export type CloneSetSpec = Static<typeof CloneSetSpecSchema>;

export const CloneSetConditionSchema = Type.Object({
  type: str({ description: 'FailedScale, FailedUpdate, Progressing or PodsHeld.' }),
  status: stringEnum(CONDITION_STATUSES),
  lastTransitionTime: Type.Optional(str({ format: 'date-time' })),
  lastUpdateTime: Type.Optional(str({ format: 'date-time' })),
  reason: Type.Optional(str()),
  message: Type.Optional(str()),
});
export type CloneSetCondition = Static<typeof CloneSetConditionSchema>;

export const CloneSetStatusSchema = Type.Object(
  {
    observedGeneration: Type.Optional(int64({ description: 'The generation this status was computed for.' })),
    replicas: int32({ description: 'Active pods, including surge and PreparingDelete pods.' }),
    readyReplicas: int32({ description: 'Pods that are ready (phase Running, Ready, InPlaceUpdateReady).' }),
    availableReplicas: int32({ description: 'Ready for minReadySeconds and in lifecycle state Normal.' }),
    updatedReplicas: int32({ description: 'Pods at updateRevision.' }),
    updatedReadyReplicas: int32({ description: 'Pods at updateRevision that are ready.' }),
    updatedAvailableReplicas: Type.Optional(int32({ description: 'Pods at updateRevision that are available.' })),
    expectedUpdatedReplicas: Type.Optional(int32({ description: 'replicas minus the resolved partition.' })),
    updateRevision: Type.Optional(str({ description: 'ControllerRevision of the current template.' })),
    currentRevision: Type.Optional(str({ description: 'Revision all pods were last at.' })),
    collisionCount: Type.Optional(int32({ description: 'Revision-name collisions so far.' })),
    labelSelector: Type.Optional(str({ description: 'The selector in string form, for HPA and kubectl scale.' })),
    conditions: Type.Optional(list(CloneSetConditionSchema)),
  },
  { description: 'Observed state of a CloneSet.' },
);
export type CloneSetStatus = Static<typeof CloneSetStatusSchema>;

export const CloneSetSchema = resourceSchema(CloneSetSpecSchema, CloneSetStatusSchema, 'CloneSet manages a set of identical pods, with in-place update, partition, surge and lifecycle hooks.');
export type CloneSet = Static<typeof CloneSetSchema>;
