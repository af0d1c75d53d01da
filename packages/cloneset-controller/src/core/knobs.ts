// Knob resolution (OpenKruise's knob resolution) delegated to api-types; this wrapper only adapts the
// CloneSet shape and turns an invalid partition into a reported error instead of a throw.
import { resolveCloneSetKnobs } from '@cloneset-suite/api-types';
import type { CloneSetLike } from './types.ts';

export interface Knobs {
  replicas: number;
  partition: number;
  maxSurge: number;
  maxUnavailable: number;
  scaleMaxUnavailable: number;
  /** False when the partition could not be parsed; P then defaults to 0 (expectedUpdated stays 0). */
  partitionValid: boolean;
}

export function resolveKnobs(cs: CloneSetLike): Knobs {
  const spec = cs.spec;
  const replicas = spec.replicas ?? 1;
  const us = spec.updateStrategy ?? {};
  const source = {
    replicas,
    updateStrategy: {
      partition: us.partition,
      maxSurge: us.maxSurge,
      maxUnavailable: us.maxUnavailable,
      paused: us.paused,
    },
    scaleStrategy: spec.scaleStrategy?.maxUnavailable !== undefined ? { maxUnavailable: spec.scaleStrategy.maxUnavailable } : {},
  };
  try {
    return { replicas, ...resolveCloneSetKnobs(source), partitionValid: true };
  } catch {
    const { partition: _p, ...rest } = source.updateStrategy;
    return { replicas, ...resolveCloneSetKnobs({ ...source, updateStrategy: rest }), partitionValid: false };
  }
}
