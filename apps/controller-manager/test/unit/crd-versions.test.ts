// Whether the CloneSet CRD serves apps.kruise.io/v1beta1: only on the operator's opt-in, or while
// status.storedVersions lists it (kept and said once; a switch-off of the opt-in refused), and
// the write that gets it there (conversion stanza first, then the version, one guarded patch).
import { cloneSetCrd, type CrdVersion } from '@cloneset-suite/api-types';
import { describe, expect, it } from 'vitest';
import { planBundle } from '../../src/certs/bundle.ts';
import { planCrdServing, type ConvertedCrd, type CrdConversionGoal, type CrdConversionState } from '../../src/certs/crd-conversion.ts';
import { decideOptInVersion, OPT_IN_ANNOTATION, type CrdVersionsState } from '../../src/certs/crd-versions.ts';
import { applyJsonPatch } from '../support/apply-patch.ts';

const CRD = 'clonesets.apps.kruise.io';
const v1beta1 = cloneSetCrd({ v1beta1: true }).spec.versions.find((v) => v.name === 'v1beta1') as CrdVersion;
const converted: ConvertedCrd = { name: CRD, optInVersion: v1beta1 };
const { bundle } = await planBundle(undefined, { hosts: ['127.0.0.1'], servingValidityMs: 86_400_000, now: new Date() });
const caBundle = Buffer.from(bundle.caBundle).toString('base64');
const service = { namespace: 'system', name: 'webhook', port: 443 };
const serviceGoal: CrdConversionGoal = { target: { service }, path: '/convert', caBundlePem: bundle.caBundle };
const urlGoal: CrdConversionGoal = { target: { urlBase: 'https://127.0.0.1:9443' }, path: '/convert', caBundlePem: bundle.caBundle };
const ours = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { ...service, path: '/convert' }, caBundle } } };
const otherUrl = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1234/convert' } } };

interface Crd extends CrdVersionsState {
  metadata: { name: string; resourceVersion: string; annotations?: Record<string, string> };
  spec: { versions: { name: string }[]; conversion?: CrdConversionState };
  status: { storedVersions: string[] };
}

function crd(o: { served: string[]; stored?: string[]; marked?: boolean; conversion?: CrdConversionState }): Crd {
  return {
    metadata: { name: CRD, resourceVersion: '7', ...(o.marked ? { annotations: { [OPT_IN_ANNOTATION]: 'true' } } : {}) },
    spec: { versions: o.served.map((name) => ({ name })), ...(o.conversion ? { conversion: o.conversion } : {}) },
    status: { storedVersions: o.stored ?? ['v1alpha1'] },
  };
}

/** The CRD after the planned patch: served version names, whether marked, the conversion strategy. */
function after(c: Crd, goal: CrdConversionGoal, optIn: boolean): [string[], boolean, string | undefined] {
  const plan = planCrdServing(c, converted, { ...goal, optIn });
  const next = applyJsonPatch(c, plan.ops as never) as Crd;
  return [next.spec.versions.map((v) => v.name), next.metadata.annotations?.[OPT_IN_ANNOTATION] === 'true', next.spec.conversion?.strategy];
}

describe('decideOptInVersion', () => {
  it.each<[string, CrdVersionsState, boolean, string]>([
    ['opted in', crd({ served: ['v1alpha1'] }), true, 'opted-in'],
    ['default, not stored: not served', crd({ served: ['v1alpha1', 'v1beta1'] }), false, 'none'],
    ['default, stored (from OpenKruise main): kept without being asked', crd({ served: ['v1alpha1', 'v1beta1'], stored: ['v1beta1', 'v1alpha1'] }), false, 'stored'],
    ['opt-in switched off while stored: refused', crd({ served: ['v1alpha1', 'v1beta1'], stored: ['v1beta1', 'v1alpha1'], marked: true }), false, 'switch-off-refused'],
    ['opt-in switched off, not stored: switched off', crd({ served: ['v1alpha1', 'v1beta1'], marked: true }), false, 'none'],
  ])('%s', (_name, state, optIn, why) => {
    const d = decideOptInVersion(CRD, state, 'v1beta1', optIn);
    expect(d.serve ? d.why : 'none').toBe(why);
  });

  it('names the stored version and the migration step when it keeps or refuses', () => {
    for (const marked of [false, true]) {
      const d = decideOptInVersion(CRD, crd({ served: ['v1alpha1', 'v1beta1'], stored: ['v1beta1', 'v1alpha1'], marked }), 'v1beta1', false);
      const message = d.serve && d.why !== 'opted-in' ? d.message : '';
      expect(message).toContain('status.storedVersions of clonesets.apps.kruise.io lists v1beta1');
      expect(message).toContain('kubectl replace');
      expect(message).toContain('--subresource=status');
    }
  });
});

describe('planCrdServing', () => {
  it.each<[string, Crd, CrdConversionGoal, boolean, [string[], boolean, string | undefined]]>([
    ['fresh default install: nothing written', crd({ served: ['v1alpha1'] }), serviceGoal, false, [['v1alpha1'], false, undefined]],
    ['opt-in on a fresh CRD: conversion, then v1beta1, marked', crd({ served: ['v1alpha1'] }), serviceGoal, true, [['v1alpha1', 'v1beta1'], true, 'Webhook']],
    ['opt-in on a CRD already serving it through us: only the mark', crd({ served: ['v1alpha1', 'v1beta1'], conversion: ours }), serviceGoal, true, [['v1alpha1', 'v1beta1'], true, 'Webhook']],
    ['opt-in switched off, nothing stored as v1beta1: v1beta1 and the stanza go', crd({ served: ['v1alpha1', 'v1beta1'], marked: true, conversion: ours }), serviceGoal, false, [['v1alpha1'], false, 'None']],
    ["this project's earlier default (v1beta1 served, unmarked, not stored): v1alpha1 only", crd({ served: ['v1alpha1', 'v1beta1'], conversion: ours }), serviceGoal, false, [['v1alpha1'], false, 'None']],
    ['stored as v1beta1, not asked: kept served and converted, unmarked', crd({ served: ['v1alpha1', 'v1beta1'], stored: ['v1beta1', 'v1alpha1'] }), serviceGoal, false, [['v1alpha1', 'v1beta1'], false, 'Webhook']],
    ['switch-off refused while stored: kept served, still marked', crd({ served: ['v1alpha1', 'v1beta1'], stored: ['v1beta1', 'v1alpha1'], marked: true, conversion: ours }), serviceGoal, false, [['v1alpha1', 'v1beta1'], true, 'Webhook']],
    ["URL mode: another process converts: left to it (the installer decides)", crd({ served: ['v1alpha1', 'v1beta1'], marked: true, conversion: otherUrl }), urlGoal, false, [['v1alpha1', 'v1beta1'], true, 'Webhook']],
    ['URL mode: opt-in with no stanza: our URL, then v1beta1', crd({ served: ['v1alpha1'] }), urlGoal, true, [['v1alpha1', 'v1beta1'], true, 'Webhook']],
  ])('%s', (_name, c, goal, optIn, expected) => {
    expect(after(c, goal, optIn)).toEqual(expected);
  });

  it('writes the conversion stanza before it adds the version, in one patch', () => {
    const plan = planCrdServing(crd({ served: ['v1alpha1'] }), converted, { ...serviceGoal, optIn: true });
    expect(plan.ops.map((o) => `${o.op} ${o.path}`)).toEqual(['add /spec/conversion', 'add /spec/versions/-', 'add /metadata/annotations']);
    expect((plan.ops[1]!.value as CrdVersion).name).toBe('v1beta1');
  });

  it('a settled CRD costs no write, in either state', () => {
    expect(planCrdServing(crd({ served: ['v1alpha1'] }), converted, { ...serviceGoal, optIn: false }).ops).toEqual([]);
    expect(planCrdServing(crd({ served: ['v1alpha1', 'v1beta1'], marked: true, conversion: ours }), converted, { ...serviceGoal, optIn: true }).ops).toEqual([]);
  });
});
