import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@cloneset-suite/kube-runtime';
import type { KubeObject } from '@cloneset-suite/kube-runtime';
import { PLAN_CASES, planCases, podsForPass, timePlans, timePlansInChild } from '../../src/plan-timing.ts';
import { IMAGE_V1, cloneSet } from '../../src/workloads.ts';

type Cs = Parameters<typeof planCases>[0];
const cs = (): Cs => deepFreeze({ ...cloneSet({ name: 'app', replicas: 10, image: IMAGE_V1 }), metadata: { name: 'app', namespace: 'ns', uid: 'uid-1' } }) as unknown as Cs;

describe('planCases', () => {
  it('scales out by a tenth, changes the first container image, and leaves the input as it was', () => {
    const input = cs();
    const cases = planCases(input);
    expect(cases.settled).toBe(input);
    expect(cases['scale-out'].spec.replicas).toBe(11);
    expect(cases['template change'].spec.template.spec?.containers[0]?.image).toBe(`${IMAGE_V1}-changed`);
    expect(input.spec.template.spec?.containers[0]?.image).toBe(IMAGE_V1);
    expect(planCases({ ...input, spec: { ...input.spec, replicas: 1 } })['scale-out'].spec.replicas).toBe(2);
  });
});

describe('podsForPass', () => {
  it('gives every pass of "every pod changed" new frozen versions of the pods, and the other cases the same objects', () => {
    const pods = [deepFreeze({ metadata: { name: 'app-a', labels: { app: 'app' } } })] as unknown as Parameters<typeof podsForPass>[1];
    const changed = podsForPass('settled, every pod changed', pods);
    expect(changed).toEqual(pods);
    expect(changed[0]).not.toBe(pods[0]);
    expect(Object.isFrozen(changed[0]?.metadata)).toBe(true);
    expect(podsForPass('settled', pods)[0]).toBe(pods[0]);
  });
});

describe('timePlans', () => {
  it('times every case the asked number of passes and reports what each planned', () => {
    const t = timePlans({ pods: [], pvcs: [], revisions: [], gates: {}, nowMs: 0, random: Math.random }, cs(), 4, 1);
    expect(t.pods).toBe(0);
    for (const name of PLAN_CASES) {
      expect(t.cases[name].samples).toHaveLength(4);
      expect(t.cases[name].samples.every((ms) => ms >= 0)).toBe(true);
      expect(t.cases[name].longestStage.samples).toHaveLength(4);
      // A stage is part of its pass.
      expect(t.cases[name].longestStage.max).toBeLessThanOrEqual(t.cases[name].max);
    }
    // No pods yet: every case creates, the scaled-out one one pod more.
    expect(t.cases['scale-out'].actions).toBeGreaterThan(t.cases.settled.actions);
    expect(t.cases.settled.actions).toBeGreaterThan(0);
  });
});

describe('timePlansInChild', () => {
  it('answers from a fresh process what the CloneSet\'s objects plan, as the cache holds them', async () => {
    const served = { ...cloneSet({ name: 'app', replicas: 3, image: IMAGE_V1 }), metadata: { name: 'app', namespace: 'ns', uid: 'uid-1', managedFields: [{ manager: 'kubectl' }] } } as KubeObject;
    const t = await timePlansInChild({ cs: served, pods: [], revisions: [], passes: 2 });
    expect(t.passes).toBe(2);
    expect(t.cases.settled.samples).toHaveLength(2);
    // Three pods to create (slow-start batches 1 and 2) and the first revision.
    expect(t.cases.settled.actions).toBeGreaterThanOrEqual(3);
  });
});
