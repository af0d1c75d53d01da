// Properties of CloneSet conversion over generated objects: v1alpha1 -> v1beta1 -> v1alpha1 and
// v1beta1 -> v1alpha1 -> v1beta1 give back the very object (every form, odd ones included), and
// both forms of an object mean the same to a controller.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONVERSION_ANNOTATIONS, cloneSetToV1alpha1, cloneSetToV1beta1, defaultCloneSet, jsonEqual, type CloneSet } from '../../src/index.ts';
import { anyShapedCloneSet, v1alpha1CloneSet, v1beta1CloneSet } from '../support/cloneset-arbitraries.ts';

type Json = Record<string, unknown>;
const RUNS = { numRuns: 400 };

const EXCLUDE = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';
const PREDOWNLOAD: Record<string, string> = {
  'apps.kruise.io/image-predownload-parallelism': 'imagePreDownloadParallelism',
  'apps.kruise.io/image-predownload-timeout-seconds': 'imagePreDownloadTimeoutSeconds',
  'apps.kruise.io/image-predownload-min-updated-ready-pods': 'imagePreDownloadMinUpdatedReadyPods',
};
const KNOBS = ['partition', 'maxUnavailable', 'maxSurge', 'paused', 'priorityStrategy', 'scatterStrategy'];

const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const labels = (o: Json): Json => obj(obj(o.metadata).labels);
const annotations = (o: Json): Json => obj(obj(o.metadata).annotations);
const pickKnobs = (o: Json): Json => Object.fromEntries(KNOBS.filter((k) => k in o).map((k) => [k, o[k]]));

/** What a controller acts on, read the v1alpha1 way (our CloneSet controller reads v1alpha1). */
function meaningV1alpha1(cs: Json): Json {
  const spec = obj(cs.spec);
  const update = obj(spec.updateStrategy);
  const preDownload = Object.fromEntries(Object.keys(PREDOWNLOAD).filter((k) => annotations(cs)[k] !== undefined).map((k) => [k, String(annotations(cs)[k])]));
  return {
    reusePVCs: obj(spec.scaleStrategy).disablePVCReuse !== true,
    excludePreparingDelete: labels(cs)[EXCLUDE] === 'true',
    podUpdate: update.type ?? 'ReCreate',
    knobs: pickKnobs(update),
    gracePeriodSeconds: obj(update.inPlaceUpdateStrategy).gracePeriodSeconds,
    preDownload,
    template: spec.template,
    status: cs.status,
  };
}

/**
 * The same, read from a v1beta1 object: OpenKruise's v1beta1 fields, and where a field is unset
 * the v1alpha1 label or annotation still counts (they keep working through `kubectl label` and
 * `kubectl annotate`, which now speak v1beta1).
 */
function meaningV1beta1(cs: Json): Json {
  const spec = obj(cs.spec);
  const update = obj(spec.updateStrategy);
  const rolling = obj(update.rollingUpdate);
  const inPlace = obj(rolling.inPlaceUpdateStrategy);
  const preDownload = Object.fromEntries(
    Object.entries(PREDOWNLOAD)
      .map(([k, f]) => [k, inPlace[f] ?? annotations(cs)[k]] as const)
      .filter(([, v]) => typeof v === 'string' || typeof v === 'number')
      .map(([k, v]) => [k, String(v as string | number)]),
  );
  return {
    reusePVCs: obj(spec.scaleStrategy).enablePVCReuse === true,
    excludePreparingDelete: obj(spec.scaleStrategy).excludePreparingDelete === true || labels(cs)[EXCLUDE] === 'true',
    podUpdate: update.type === 'OnDelete' ? 'OnDelete' : (rolling.podUpdatePolicy ?? 'ReCreate'),
    knobs: pickKnobs(rolling),
    gracePeriodSeconds: inPlace.gracePeriodSeconds,
    preDownload,
    template: spec.template,
    status: cs.status,
  };
}

describe('CloneSet conversion (properties)', () => {
  it('v1alpha1 -> v1beta1 -> v1alpha1 gives back the same object', () => {
    fc.assert(fc.property(v1alpha1CloneSet, (a) => {
      expect(cloneSetToV1alpha1(cloneSetToV1beta1(a))).toEqual(a);
    }), RUNS);
  });

  it('v1beta1 -> v1alpha1 -> v1beta1 gives back the same object', () => {
    fc.assert(fc.property(v1beta1CloneSet, (b) => {
      expect(cloneSetToV1beta1(cloneSetToV1alpha1(b))).toEqual(b);
    }), RUNS);
  });

  it('round trips whatever JSON sits where the strategy fields go, and never throws', () => {
    fc.assert(fc.property(anyShapedCloneSet('apps.kruise.io/v1alpha1'), (a) => jsonEqual(cloneSetToV1alpha1(cloneSetToV1beta1(a)), a)), RUNS);
    fc.assert(fc.property(anyShapedCloneSet('apps.kruise.io/v1beta1'), (b) => jsonEqual(cloneSetToV1beta1(cloneSetToV1alpha1(b)), b)), RUNS);
  });

  it('a v1alpha1 CloneSet means the same as v1beta1', () => {
    fc.assert(fc.property(v1alpha1CloneSet, (a) => {
      expect(meaningV1beta1(cloneSetToV1beta1(a))).toEqual(meaningV1alpha1(a));
    }), RUNS);
  });

  it('a v1beta1 CloneSet means to our controller (reading v1alpha1) what it means in v1beta1', () => {
    fc.assert(fc.property(v1beta1CloneSet, (b) => {
      expect(meaningV1alpha1(cloneSetToV1alpha1(b))).toEqual(meaningV1beta1(b));
    }), RUNS);
  });

  it('a defaulted v1alpha1 CloneSet gets a carry annotation only where it spells out what v1beta1 cannot tell apart', () => {
    // What v1beta1 can hold as a field, as written: a non-negative int32 (a percentage for parallelism).
    const fieldHolds = (key: string, text: unknown): boolean =>
      (/^(0|[1-9][0-9]*)$/.test(String(text)) && Number(text) <= 2147483647) || (key.endsWith('parallelism') && /^(0|[1-9][0-9]*)%$/.test(String(text)));
    fc.assert(
      fc.property(v1alpha1CloneSet, (raw) => {
        const a = defaultCloneSet(raw as unknown as CloneSet) as unknown as Json;
        const spec = obj(a.spec);
        const scale = obj(spec.scaleStrategy);
        const spelledOutReuse = 'scaleStrategy' in spec && (scale.disablePVCReuse === false || Object.keys(scale).length === 0);
        const preDownload = Object.keys(PREDOWNLOAD).filter((k) => annotations(a)[k] !== undefined);
        // v1beta1 creates the inPlaceUpdateStrategy to hold a field in; v1alpha1 gets it back empty.
        const textOnly = preDownload.some((k) => fieldHolds(k, annotations(a)[k])) && obj(spec.updateStrategy).inPlaceUpdateStrategy === undefined;
        const carried = annotations(cloneSetToV1beta1(a))[CONVERSION_ANNOTATIONS.v1alpha1Fields] !== undefined;
        expect(carried).toBe(spelledOutReuse || textOnly);
      }),
      RUNS,
    );
  });
});
