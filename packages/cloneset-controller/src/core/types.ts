// Structural view of the CloneSet the planners read. Field names follow the CRD
// (OpenKruise's CloneSet spec), so the api-types `CloneSet` satisfies it; keeping it structural
// lets the core stay independent of how api-types models optional fields.
import type { LabelSelector } from '@cloneset-suite/api-types';
import type { V1PersistentVolumeClaim, V1PodTemplateSpec } from '@kubernetes/client-node';

export type IntOrPercent = number | string;

/** The api-types selector; kept under this name for the planners. */
export type Selector = LabelSelector;

export interface Hook {
  labelsHandler?: Record<string, string>;
  finalizersHandler?: string[];
  markPodNotReady?: boolean;
}

export interface CloneSetLifecycle {
  preDelete?: Hook;
  inPlaceUpdate?: Hook;
  preNormal?: Hook;
}

export type UpdateStrategyType = 'ReCreate' | 'InPlaceIfPossible' | 'InPlaceOnly' | 'OnDelete';

export interface CloneSetUpdateStrategy {
  type?: string;
  partition?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  maxSurge?: IntOrPercent;
  paused?: boolean;
  priorityStrategy?: {
    weightPriority?: { weight: number; matchSelector: Selector }[];
    orderPriority?: { orderedKey: string }[];
  };
  scatterStrategy?: { key: string; value: string }[];
  inPlaceUpdateStrategy?: { gracePeriodSeconds?: number };
}

export interface CloneSetScaleStrategy {
  podsToDelete?: string[];
  maxUnavailable?: IntOrPercent;
  disablePVCReuse?: boolean;
}

export interface CloneSetSpecLike {
  replicas?: number;
  selector: Selector;
  template: V1PodTemplateSpec;
  volumeClaimTemplates?: V1PersistentVolumeClaim[];
  scaleStrategy?: CloneSetScaleStrategy;
  updateStrategy?: CloneSetUpdateStrategy;
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  lifecycle?: CloneSetLifecycle;
  progressDeadlineSeconds?: number;
}

export interface StatusCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
}

export interface CloneSetStatusLike {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  updatedReadyReplicas?: number;
  updatedAvailableReplicas?: number;
  expectedUpdatedReplicas?: number;
  updateRevision?: string;
  currentRevision?: string;
  collisionCount?: number;
  labelSelector?: string;
  conditions?: StatusCondition[];
}

export interface CloneSetLike {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string | Date;
  };
  spec: CloneSetSpecLike;
  status?: CloneSetStatusLike;
}
