// What makes conversion lossless both ways. The fields the two versions shape differently (the
// strategy part: scaleStrategy, updateStrategy, the exclude-preparing-delete label, the
// pre-download annotations) are mapped by plain.ts; where the mapped object would not map back
// to its source (a form the apiserver's defaults never leave, such as an explicit
// `disablePVCReuse: false`), the source's strategy part rides along in an annotation of the
// converted object, as Kubernetes does for its own lossy conversions, and is restored on the
// way back. The annotation is used only while it still maps to what the object says: an edit
// made in the other version wins over it.
import { KRUISE_LABELS } from '../../keys/kruise.ts';
import { jsonEqual } from '../../json-equal.ts';
import { cloneJson, isJsonObject, mapEntry, setMapEntry, type JsonObject } from './json-object.ts';
import { toV1alpha1Plain, toV1beta1Plain } from './plain.ts';
import { PREDOWNLOAD_ANNOTATIONS } from './predownload-fields.ts';

export const CONVERSION_ANNOTATIONS = {
  /** On a v1alpha1 CloneSet: the strategy part of the v1beta1 object it was converted from. */
  v1beta1Fields: 'conversion.cloneset-suite.io/v1beta1-fields',
  /** On a v1beta1 CloneSet: the strategy part of the v1alpha1 object it was converted from. */
  v1alpha1Fields: 'conversion.cloneset-suite.io/v1alpha1-fields',
} as const;

const PART_LABELS: readonly string[] = [KRUISE_LABELS.scalingExcludePreparingDelete];
const PART_ANNOTATIONS: readonly string[] = PREDOWNLOAD_ANNOTATIONS;

/** The fields one version shapes differently from the other; absent ones are left out. */
interface StrategyPart {
  scaleStrategy?: unknown;
  updateStrategy?: unknown;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function entries(metadata: JsonObject | undefined, field: string, keys: readonly string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = mapEntry(metadata, field, k);
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function partOf(object: JsonObject): StrategyPart {
  const spec = isJsonObject(object.spec) ? object.spec : {};
  const metadata = isJsonObject(object.metadata) ? object.metadata : undefined;
  const part: StrategyPart = {};
  if (spec.scaleStrategy !== undefined) part.scaleStrategy = spec.scaleStrategy;
  if (spec.updateStrategy !== undefined) part.updateStrategy = spec.updateStrategy;
  const labels = entries(metadata, 'labels', PART_LABELS);
  if (labels) part.labels = labels;
  const annotations = entries(metadata, 'annotations', PART_ANNOTATIONS);
  if (annotations) part.annotations = annotations;
  return part;
}

/** `object` (changed in place) with its strategy part replaced by `part`. */
function replacePart(object: JsonObject, part: StrategyPart): JsonObject {
  if (isJsonObject(object.spec)) {
    const spec = object.spec;
    for (const field of ['scaleStrategy', 'updateStrategy'] as const) {
      if (part[field] === undefined) delete spec[field];
      else spec[field] = cloneJson(part[field]);
    }
  }
  const hadMetadata = isJsonObject(object.metadata);
  const metadata = hadMetadata ? (object.metadata as JsonObject) : {};
  for (const k of PART_LABELS) setMapEntry(metadata, 'labels', k, part.labels?.[k]);
  for (const k of PART_ANNOTATIONS) setMapEntry(metadata, 'annotations', k, part.annotations?.[k]);
  if (!hadMetadata && Object.keys(metadata).length > 0) object.metadata = metadata;
  return object;
}

function parsePart(text: string): StrategyPart | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const stringMap = (m: unknown): boolean => m === undefined || (isJsonObject(m) && Object.values(m).every((v) => typeof v === 'string'));
  return stringMap(value.labels) && stringMap(value.annotations) ? value : undefined;
}

/** `object` without the annotation `key` (a copy), and that annotation's value. */
function takeAnnotation(object: JsonObject, key: string): [JsonObject, string | undefined] {
  const value = mapEntry(isJsonObject(object.metadata) ? object.metadata : undefined, 'annotations', key);
  if (value === undefined) return [object, undefined];
  const copy = cloneJson(object);
  setMapEntry(copy.metadata as JsonObject, 'annotations', key, undefined);
  return [copy, value];
}

interface Direction {
  forward: (o: JsonObject) => JsonObject;
  backward: (o: JsonObject) => JsonObject;
  /** The annotation this direction reads (left by the opposite one). */
  reads: string;
  /** The annotation this direction writes. */
  writes: string;
}

function convert(source: JsonObject, d: Direction): JsonObject {
  const [bare, carried] = takeAnnotation(source, d.reads);
  const part = carried === undefined ? undefined : parsePart(carried);
  if (part) {
    const restored = replacePart(d.forward(bare), part);
    if (jsonEqual(d.backward(restored), bare)) return restored;
  }
  const converted = d.forward(bare);
  if (jsonEqual(d.backward(converted), bare)) return converted;
  const metadata = isJsonObject(converted.metadata) ? converted.metadata : (converted.metadata = {});
  setMapEntry(metadata, 'annotations', d.writes, JSON.stringify(partOf(bare)));
  return converted;
}

/** A v1alpha1 CloneSet as v1beta1; `cloneSetToV1alpha1` of the result gives the source back. */
export function cloneSetToV1beta1(source: JsonObject): JsonObject {
  return convert(source, {
    forward: toV1beta1Plain,
    backward: toV1alpha1Plain,
    reads: CONVERSION_ANNOTATIONS.v1beta1Fields,
    writes: CONVERSION_ANNOTATIONS.v1alpha1Fields,
  });
}

/** A v1beta1 CloneSet as v1alpha1; `cloneSetToV1beta1` of the result gives the source back. */
export function cloneSetToV1alpha1(source: JsonObject): JsonObject {
  return convert(source, {
    forward: toV1alpha1Plain,
    backward: toV1beta1Plain,
    reads: CONVERSION_ANNOTATIONS.v1alpha1Fields,
    writes: CONVERSION_ANNOTATIONS.v1beta1Fields,
  });
}
