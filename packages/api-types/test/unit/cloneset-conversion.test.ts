// Each difference between CloneSet v1alpha1 and v1beta1, both ways, and what the conversion does
// with forms one version cannot express (the carry annotation) and with objects it cannot convert.
import { describe, expect, it } from 'vitest';
import { CONVERSION_ANNOTATIONS, CloneSetConversionError, cloneSetToV1alpha1, cloneSetToV1beta1, convertCloneSet } from '../../src/index.ts';

type Json = Record<string, unknown>;

const EXCLUDE = 'apps.kruise.io/cloneset-scaling-exclude-preparing-delete';
const PARALLELISM = 'apps.kruise.io/image-predownload-parallelism';
const TIMEOUT = 'apps.kruise.io/image-predownload-timeout-seconds';
const MIN_READY = 'apps.kruise.io/image-predownload-min-updated-ready-pods';

const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'main', image: 'nginx' }] } };

function alpha(spec: Json, metadata: Json = {}): Json {
  return { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'a', namespace: 'ns', ...metadata }, spec: { selector: { matchLabels: { app: 'a' } }, template, ...spec } };
}
function beta(spec: Json, metadata: Json = {}): Json {
  return { ...alpha(spec, metadata), apiVersion: 'apps.kruise.io/v1beta1' };
}

const carryOf = (o: Json, key: string): unknown => (o.metadata as { annotations?: Record<string, string> }).annotations?.[key];

describe('v1alpha1 -> v1beta1, each difference (and back to the same object)', () => {
  it.each<[string, Json, Json]>([
    ['ReCreate is RollingUpdate with podUpdatePolicy ReCreate', alpha({ updateStrategy: { type: 'ReCreate' } }), beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate' } } })],
    ['InPlaceIfPossible', alpha({ updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: {} } }), beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', inPlaceUpdateStrategy: {} } } })],
    ['InPlaceOnly', alpha({ updateStrategy: { type: 'InPlaceOnly' } }), beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceOnly' } } })],
    ['OnDelete keeps its partition under rollingUpdate', alpha({ updateStrategy: { type: 'OnDelete', partition: 2 } }), beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 2 } } })],
    ['no type stays no type', alpha({ updateStrategy: { maxSurge: 1 } }), beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { rollingUpdate: { maxSurge: 1 } } })],
    [
      'every rolling knob moves under rollingUpdate',
      alpha({ updateStrategy: { type: 'ReCreate', partition: '50%', maxUnavailable: '20%', maxSurge: 0, paused: true, priorityStrategy: { orderPriority: [{ orderedKey: 'o' }] }, scatterStrategy: [{ key: 'k', value: 'v' }], inPlaceUpdateStrategy: { gracePeriodSeconds: 5 } } }),
      beta({
        scaleStrategy: { enablePVCReuse: true },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate', partition: '50%', maxUnavailable: '20%', maxSurge: 0, paused: true, priorityStrategy: { orderPriority: [{ orderedKey: 'o' }] }, scatterStrategy: [{ key: 'k', value: 'v' }], inPlaceUpdateStrategy: { gracePeriodSeconds: 5 } } },
      }),
    ],
    ['PVC reuse (the v1alpha1 default) is enablePVCReuse: true', alpha({}), beta({ scaleStrategy: { enablePVCReuse: true } })],
    ['disablePVCReuse: true is enablePVCReuse: false', alpha({ scaleStrategy: { disablePVCReuse: true, podsToDelete: ['p'], maxUnavailable: 1 } }), beta({ scaleStrategy: { enablePVCReuse: false, podsToDelete: ['p'], maxUnavailable: 1 } })],
    ['the exclude-preparing-delete label is the field', alpha({}, { labels: { [EXCLUDE]: 'true', app: 'a' } }), beta({ scaleStrategy: { enablePVCReuse: true, excludePreparingDelete: true } }, { labels: { app: 'a' } })],
    ['the label with another value is only a label', alpha({}, { labels: { [EXCLUDE]: 'false' } }), beta({ scaleStrategy: { enablePVCReuse: true } }, { labels: { [EXCLUDE]: 'false' } })],
    [
      'the pre-download annotations are fields',
      alpha({ updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: { gracePeriodSeconds: 3 } } }, { annotations: { [PARALLELISM]: '50%', [TIMEOUT]: '300', [MIN_READY]: '2', note: 'x' } }),
      beta(
        { scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', inPlaceUpdateStrategy: { gracePeriodSeconds: 3, imagePreDownloadParallelism: '50%', imagePreDownloadTimeoutSeconds: 300, imagePreDownloadMinUpdatedReadyPods: 2 } } } },
        { annotations: { note: 'x' } },
      ),
    ],
    [
      'a pre-download annotation v1beta1 cannot hold as written stays an annotation',
      alpha({ updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: {} } }, { annotations: { [PARALLELISM]: '3', [TIMEOUT]: '05', [MIN_READY]: '50%' } }),
      beta(
        { scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', inPlaceUpdateStrategy: { imagePreDownloadParallelism: 3 } } } },
        { annotations: { [TIMEOUT]: '05', [MIN_READY]: '50%' } },
      ),
    ],
  ])('%s', (_name, source, expected) => {
    const converted = cloneSetToV1beta1(source);
    expect(converted).toEqual(expected);
    expect(cloneSetToV1alpha1(converted)).toEqual(source);
  });

  it('copies status, template, volume claims and the rest of metadata as they are', () => {
    const status = { observedGeneration: 3, replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 1, updateRevision: 'a-1', currentRevision: 'a-0', conditions: [{ type: 'Progressing', status: 'True' }] };
    const vct = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }];
    const source: Json = { ...alpha({ replicas: 2, volumeClaimTemplates: vct, lifecycle: { preDelete: { finalizersHandler: ['x/y'] } }, progressDeadlineSeconds: 60 }, { uid: 'u', finalizers: ['f/g'], ownerReferences: [{ kind: 'X' }] }), status };
    const converted = cloneSetToV1beta1(source);
    expect(converted.status).toEqual(status);
    expect(converted.metadata).toEqual(source.metadata);
    expect(converted.spec).toMatchObject({ replicas: 2, template, volumeClaimTemplates: vct, lifecycle: { preDelete: { finalizersHandler: ['x/y'] } }, progressDeadlineSeconds: 60 });
  });

  it('does not change its input', () => {
    const source = alpha({ updateStrategy: { type: 'ReCreate', partition: 1 } }, { labels: { [EXCLUDE]: 'true' }, annotations: { [PARALLELISM]: '2' } });
    const before = structuredClone(source);
    cloneSetToV1beta1(source);
    expect(source).toEqual(before);
  });
});

describe('v1beta1 -> v1alpha1, each difference (and back to the same object)', () => {
  it.each<[string, Json, Json]>([
    ['RollingUpdate with a podUpdatePolicy is that type', beta({ scaleStrategy: { enablePVCReuse: false }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceOnly', maxUnavailable: 1 } } }), alpha({ scaleStrategy: { disablePVCReuse: true }, updateStrategy: { type: 'InPlaceOnly', maxUnavailable: 1 } })],
    ['OnDelete', beta({ scaleStrategy: { enablePVCReuse: false }, updateStrategy: { type: 'OnDelete' } }), alpha({ scaleStrategy: { disablePVCReuse: true }, updateStrategy: { type: 'OnDelete' } })],
    ['enablePVCReuse: true is the v1alpha1 default (no field)', beta({ scaleStrategy: { enablePVCReuse: true } }), alpha({})],
    ['enablePVCReuse: false (the v1beta1 default) is disablePVCReuse: true', beta({ scaleStrategy: { enablePVCReuse: false, podsToDelete: ['p'] } }), alpha({ scaleStrategy: { podsToDelete: ['p'], disablePVCReuse: true } })],
    ['excludePreparingDelete is the label', beta({ scaleStrategy: { enablePVCReuse: false, excludePreparingDelete: true } }), alpha({ scaleStrategy: { disablePVCReuse: true } }, { labels: { [EXCLUDE]: 'true' } })],
    [
      'the pre-download fields are annotations',
      beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', inPlaceUpdateStrategy: { imagePreDownloadParallelism: 4, imagePreDownloadTimeoutSeconds: 60, imagePreDownloadMinUpdatedReadyPods: 1 } } } }),
      alpha({ updateStrategy: { type: 'InPlaceIfPossible', inPlaceUpdateStrategy: {} } }, { annotations: { [PARALLELISM]: '4', [TIMEOUT]: '60', [MIN_READY]: '1' } }),
    ],
  ])('%s', (_name, source, expected) => {
    const converted = cloneSetToV1alpha1(source);
    expect(converted).toEqual(expected);
    expect(cloneSetToV1beta1(converted)).toEqual(source);
  });

  it.each<[string, Json, (a: Json) => unknown, unknown]>([
    ['RollingUpdate without a podUpdatePolicy is ReCreate', beta({ updateStrategy: { type: 'RollingUpdate' } }), (a) => (a.spec as Json).updateStrategy, { type: 'ReCreate' }],
    ['a podUpdatePolicy without a type is that type', beta({ updateStrategy: { rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } } }), (a) => (a.spec as Json).updateStrategy, { type: 'InPlaceIfPossible' }],
    ['no scaleStrategy means no PVC reuse in v1beta1', beta({}), (a) => (a.spec as Json).scaleStrategy, { disablePVCReuse: true }],
    ['OnDelete ignores a podUpdatePolicy', beta({ updateStrategy: { type: 'OnDelete', rollingUpdate: { podUpdatePolicy: 'InPlaceOnly', partition: 1 } } }), (a) => (a.spec as Json).updateStrategy, { type: 'OnDelete', partition: 1 }],
    ['the exclude label without the field still works (kubectl label speaks v1beta1 now)', beta({ scaleStrategy: { enablePVCReuse: true } }, { labels: { [EXCLUDE]: 'true', app: 'a' } }), (a) => (a.metadata as Json).labels, { [EXCLUDE]: 'true', app: 'a' }],
    ['a pre-download annotation without its field still works (kubectl annotate)', beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { rollingUpdate: { inPlaceUpdateStrategy: {} } } }, { annotations: { [PARALLELISM]: '2' } }), (a) => Object.keys((a.metadata as { annotations: Json }).annotations), [PARALLELISM, CONVERSION_ANNOTATIONS.v1beta1Fields]],
    ['a pre-download field wins over its annotation', beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { rollingUpdate: { inPlaceUpdateStrategy: { imagePreDownloadParallelism: 5 } } } }, { annotations: { [PARALLELISM]: '2' } }), (a) => (a.metadata as { annotations: Json }).annotations[PARALLELISM], '5'],
  ])('%s (the v1beta1 form rides along and comes back)', (_name, source, pick, expected) => {
    const converted = cloneSetToV1alpha1(source);
    expect(pick(converted)).toEqual(expected);
    expect(carryOf(converted, CONVERSION_ANNOTATIONS.v1beta1Fields)).toBeDefined();
    expect(cloneSetToV1beta1(converted)).toEqual(source);
  });
});

describe('the carry annotation', () => {
  const source = beta({ scaleStrategy: { enablePVCReuse: false }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } });

  it('is used only while it still maps to the object: an edit in the other version wins', () => {
    const stored = cloneSetToV1alpha1(source);
    expect(carryOf(stored, CONVERSION_ANNOTATIONS.v1beta1Fields)).toBeDefined();
    const edited = structuredClone(stored);
    ((edited.spec as Json).updateStrategy as Json).partition = 3;
    const read = cloneSetToV1beta1(edited);
    expect((read.spec as Json).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate', maxUnavailable: 1, partition: 3 } });
    expect((read.metadata as Json).annotations).toBeUndefined();
  });

  it('is ignored when it is not JSON of a strategy part', () => {
    const stored = alpha({ updateStrategy: { type: 'ReCreate' } }, { annotations: { [CONVERSION_ANNOTATIONS.v1beta1Fields]: '{not json' } });
    expect(cloneSetToV1beta1(stored)).toEqual(beta({ scaleStrategy: { enablePVCReuse: true }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'ReCreate' } } }));
  });

  it('is not written for the forms the defaults leave', () => {
    const stored = alpha({ replicas: 1, revisionHistoryLimit: 10, updateStrategy: { type: 'ReCreate', partition: 0, maxUnavailable: '20%', maxSurge: 0 } });
    expect((cloneSetToV1beta1(stored).metadata as Json).annotations).toBeUndefined();
    const written = beta({ scaleStrategy: { enablePVCReuse: false }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible', partition: 0, maxUnavailable: '20%', maxSurge: 0, inPlaceUpdateStrategy: {} } } });
    expect((cloneSetToV1alpha1(written).metadata as Json).annotations).toBeUndefined();
  });
});

describe('convertCloneSet', () => {
  it('converts to the desired version and returns a copy when it is already there', () => {
    const a = alpha({ updateStrategy: { type: 'ReCreate' } });
    expect(convertCloneSet(a, 'apps.kruise.io/v1beta1')).toEqual(cloneSetToV1beta1(a));
    const same = convertCloneSet(a, 'apps.kruise.io/v1alpha1');
    expect(same).toEqual(a);
    expect(same).not.toBe(a);
  });

  it.each<[string, unknown, string, RegExp]>([
    ['an unknown desired version', alpha({}), 'apps.kruise.io/v2', /cannot convert CloneSets to "apps.kruise.io\/v2"/],
    ['not an object', 'x', 'apps.kruise.io/v1beta1', /not a JSON object/],
    ['another kind', { ...alpha({}), kind: 'StatefulSet' }, 'apps.kruise.io/v1beta1', /ns\/a: kind is "StatefulSet"/],
    ['an unknown source version', { ...alpha({}), apiVersion: 'apps.kruise.io/v1' }, 'apps.kruise.io/v1beta1', /CloneSet ns\/a: apiVersion "apps.kruise.io\/v1"/],
  ])('refuses %s with a message naming it', (_name, object, desired, message) => {
    expect(() => convertCloneSet(object, desired)).toThrow(CloneSetConversionError);
    expect(() => convertCloneSet(object, desired)).toThrow(message);
  });

  it('converts a CloneSet whose spec is not an object by its apiVersion alone', () => {
    const odd = { ...alpha({}), spec: 'x' };
    expect(convertCloneSet(odd, 'apps.kruise.io/v1beta1')).toEqual({ ...odd, apiVersion: 'apps.kruise.io/v1beta1' });
  });
});

describe('numbers a lossless parse kept as text', () => {
  // JSON.rawJSON (Node 21+) is what the conversion webhook's parser leaves for an int64 beyond 2^53.
  const raw = (JSON as unknown as { rawJSON: (text: string) => unknown }).rawJSON;

  it('come back digit for digit, both ways', () => {
    const source = alpha({ updateStrategy: { type: 'ReCreate' }, template: { ...template, spec: { ...template.spec, securityContext: { runAsUser: raw('9223372036854775807') } } } });
    const beta = cloneSetToV1beta1(source);
    expect(JSON.stringify(beta)).toContain('"runAsUser":9223372036854775807');
    expect(JSON.stringify(cloneSetToV1alpha1(beta))).toBe(JSON.stringify(source));
  });
});
