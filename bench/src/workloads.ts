// The manifests the scenarios compare: a CloneSet and a Deployment with the same pod template,
// so the simulated kubelet does the same work for both and only the controllers differ.
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import type { PodDelays } from './stats.ts';

/** The simulated kubelet's delays every bench pod asks for (the stages' defaults, made explicit). */
export const POD_DELAYS: PodDelays & { restartMs: number; terminateMs: number } = {
  startMs: 100,
  readyMs: 300,
  restartMs: 100,
  terminateMs: 100,
};

export const IMAGE_V1 = 'registry.example/bench/app:v1';
export const IMAGE_V2 = 'registry.example/bench/app:v2';
export const IMAGE_V3 = 'registry.example/bench/app:v3';

export function podTemplate(app: string, image: string): Record<string, unknown> {
  return {
    metadata: {
      labels: { app },
      annotations: {
        'sim.cloneset-suite.io/start-delay': `${POD_DELAYS.startMs}ms`,
        'sim.cloneset-suite.io/ready-delay': `${POD_DELAYS.readyMs}ms`,
        'sim.cloneset-suite.io/restart-delay': `${POD_DELAYS.restartMs}ms`,
        'sim.cloneset-suite.io/terminate-delay': `${POD_DELAYS.terminateMs}ms`,
      },
    },
    spec: {
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image, resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
    },
  };
}

export interface WorkloadSpec {
  name: string;
  replicas: number;
  image: string;
  /** Rolling update budget; "20%" or a count. */
  maxUnavailable?: number | string;
  /** CloneSet only. */
  updateType?: 'ReCreate' | 'InPlaceIfPossible';
  /** CloneSet only: pods kept at the old revision by an update. */
  partition?: number;
}

export function cloneSet(w: WorkloadSpec): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'apps.kruise.io/v1alpha1',
    kind: 'CloneSet',
    metadata: { name: w.name },
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: { app: w.name } },
      template: podTemplate(w.name, w.image),
      updateStrategy: {
        type: w.updateType ?? 'ReCreate',
        maxUnavailable: w.maxUnavailable ?? '20%',
        maxSurge: 0,
        partition: w.partition,
      },
    },
  };
}

/** `template` may add to the pod template (e.g. the CloneSet's readiness gates). */
export function deployment(w: WorkloadSpec, template: (t: Record<string, unknown>) => Record<string, unknown> = (t) => t): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: w.name },
    spec: {
      replicas: w.replicas,
      selector: { matchLabels: { app: w.name } },
      template: template(podTemplate(w.name, w.image)),
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: w.maxUnavailable ?? '20%', maxSurge: 0 } },
    },
  };
}

export function replicaSet(name: string, replicas: number): KubeObject & Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate(name, IMAGE_V1) },
  };
}
