// Pods for the table tests: labels given with short per-id names (`operating/a`) are expanded
// to the real keys, so a table row reads like the spec's state table.
import { POL_LABELS, POL_PHASE_LABEL, POL_PREFIXES, POL_SERVICE_READY_GATE } from '@cloneset-suite/api-types';
import type { Pod } from '../../src/core/pod-state.ts';

const SHORT: Record<string, string> = {
  operating: POL_PREFIXES.operating,
  'operation-type': POL_PREFIXES.operationType,
  'pre-check': POL_PREFIXES.preCheck,
  'pre-checked': POL_PREFIXES.preChecked,
  preparing: POL_PREFIXES.preparing,
  operate: POL_PREFIXES.operate,
  operated: POL_PREFIXES.operated,
  'done-operation-type': POL_PREFIXES.doneOperationType,
  'post-check': POL_PREFIXES.postCheck,
  'post-checked': POL_PREFIXES.postChecked,
  completing: POL_PREFIXES.completing,
  'undo-operation-type': POL_PREFIXES.undoOperationType,
  permission: POL_PREFIXES.operationPermission,
  'service-available': POL_LABELS.serviceAvailable,
  'stay-offline': POL_LABELS.stayOffline,
  creating: POL_LABELS.creating,
  'global-completing': POL_LABELS.completing,
};

/** `operating/a` -> `operating.podopslifecycle.kusionstack.io/a`; other keys unchanged. */
export function k(short: string): string {
  const [head, id] = short.split('/', 2);
  const full = SHORT[head!];
  if (!full) return short;
  return id === undefined ? full : `${full}/${id}`;
}

/** Expands `{ 'operating/a': 'T1' }`. */
export function L(short: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(short).map(([key, v]) => [k(key), v]));
}

/** Back to short keys, dropping the control and phase labels, for readable expectations. */
export function short(labels: Record<string, string> | undefined): Record<string, string> {
  const reverse = Object.entries(SHORT).sort((a, b) => b[1].length - a[1].length);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(labels ?? {})) {
    if (key === 'kusionstack.io/control' || key === POL_PHASE_LABEL) continue;
    const [head, id] = key.split('/', 2) as [string, string | undefined];
    const hit = reverse.find(([, full]) => full === head || full === key);
    if (!hit) out[key] = v;
    else if (hit[1] === key) out[hit[0]] = v;
    else out[`${hit[0]}/${id}`] = v;
  }
  return out;
}

export interface PodSpecShort {
  labels?: Record<string, string>;
  finalizers?: string[];
  annotations?: Record<string, string>;
  /** Has the service-ready readiness gate (default true). */
  gate?: boolean;
  /** service-ready condition status; absent when undefined. */
  serviceReady?: 'True' | 'False';
  /** Ready condition status (default False). */
  ready?: boolean;
  deleting?: boolean;
}

export function pod(s: PodSpecShort = {}): Pod {
  const conditions = [
    { type: 'Ready', status: s.ready ? 'True' : 'False' },
    ...(s.serviceReady ? [{ type: POL_SERVICE_READY_GATE, status: s.serviceReady }] : []),
  ];
  return {
    metadata: {
      name: 'p',
      namespace: 'ns',
      resourceVersion: '1',
      labels: { 'kusionstack.io/control': 'true', ...L(s.labels ?? {}) },
      annotations: s.annotations,
      finalizers: s.finalizers,
      ...(s.deleting ? { deletionTimestamp: new Date(0) } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(s.gate === false ? {} : { readinessGates: [{ conditionType: POL_SERVICE_READY_GATE }] }) },
    status: { conditions },
  };
}

export const PROT = 'prot.podopslifecycle.kusionstack.io/traffic';
export const NOW = '2000';
