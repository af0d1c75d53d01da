// The field-by-field mapping between CloneSet v1alpha1 and v1beta1 (OpenKruise's
// apis/apps/v1alpha1/cloneset_conversion.go describes the same mapping), applied to untyped
// JSON. Everything outside the strategy fields, the exclude-preparing-delete label and the
// pre-download annotations is copied as is (template, status, the rest of metadata).
//
//   v1alpha1                                       v1beta1
//   updateStrategy.type ReCreate|InPlace*          type RollingUpdate + rollingUpdate.podUpdatePolicy
//   updateStrategy.type OnDelete                   type OnDelete
//   updateStrategy.{partition, maxUnavailable,     updateStrategy.rollingUpdate.{same}
//     maxSurge, paused, priorityStrategy,
//     scatterStrategy, inPlaceUpdateStrategy}
//   annotations apps.kruise.io/image-predownload-* rollingUpdate.inPlaceUpdateStrategy.imagePreDownload*
//   scaleStrategy.disablePVCReuse                  scaleStrategy.enablePVCReuse, inverted (reuse is
//                                                  on by default in v1alpha1, off in v1beta1)
//   label apps.kruise.io/cloneset-scaling-         scaleStrategy.excludePreparingDelete
//     exclude-preparing-delete: "true"
//
// A setting v1beta1 holds as a field (the label, the pre-download annotations it can hold
// exactly) moves out of metadata into that field, so each shows once. On the way back the field
// wins, and a label or annotation with no field behind it stays in effect: `kubectl label` and
// `kubectl annotate` now speak v1beta1, and what they write keeps working (OpenKruise's v1beta1
// controller reads only the fields).
//
// These two functions are each other's inverse on the forms the apiserver stores (defaults
// applied); carry.ts makes the round trip exact for every other form.
import { KRUISE_LABELS } from '../../keys/kruise.ts';
import { cloneJson, isJsonObject, mapEntry, omit, pick, setMapEntry, type JsonObject } from './json-object.ts';
import { PREDOWNLOAD_KNOBS, annotationText, fieldValue } from './predownload-fields.ts';

export const V1ALPHA1 = 'apps.kruise.io/v1alpha1';
export const V1BETA1 = 'apps.kruise.io/v1beta1';

const EXCLUDE_LABEL = KRUISE_LABELS.scalingExcludePreparingDelete;

/** The v1alpha1 updateStrategy fields that v1beta1 keeps under rollingUpdate. */
export const ROLLING_KNOBS = ['partition', 'maxUnavailable', 'maxSurge', 'paused', 'priorityStrategy', 'scatterStrategy', 'inPlaceUpdateStrategy'] as const;

/**
 * A copy of `source` as `apiVersion`, its spec and metadata handed to `map` to change in place.
 * A copy whose spec is not an object only changes apiVersion (validation names what is wrong).
 */
function convertCopy(source: JsonObject, apiVersion: string, map: (spec: JsonObject, metadata: JsonObject) => void): JsonObject {
  const out = cloneJson(source);
  out.apiVersion = apiVersion;
  if (!isJsonObject(out.spec)) return out;
  const hadMetadata = isJsonObject(out.metadata);
  if (!hadMetadata) out.metadata = {};
  const metadata = out.metadata as JsonObject;
  map(out.spec, metadata);
  if (!hadMetadata && Object.keys(metadata).length === 0) delete out.metadata;
  return out;
}

/** A v1alpha1 CloneSet as v1beta1 (a new object; the input is not changed). */
export function toV1beta1Plain(source: JsonObject): JsonObject {
  return convertCopy(source, V1BETA1, (spec, metadata) => {
    const scale = spec.scaleStrategy;
    if (scale === undefined || isJsonObject(scale)) {
      const s = scale ?? {};
      const exclude = mapEntry(metadata, 'labels', EXCLUDE_LABEL) === 'true';
      spec.scaleStrategy = { ...omit(s, ['disablePVCReuse']), enablePVCReuse: s.disablePVCReuse !== true, ...(exclude ? { excludePreparingDelete: true } : {}) };
      // Moved into the field, as the pre-download annotations below: each setting shows once.
      if (exclude) setMapEntry(metadata, 'labels', EXCLUDE_LABEL, undefined);
    }

    const update = spec.updateStrategy;
    if (update === undefined || isJsonObject(update)) {
      const u = update ?? {};
      const rolling = pick(u, ROLLING_KNOBS);
      const preDownload = movablePreDownload(metadata, rolling.inPlaceUpdateStrategy);
      if (update !== undefined || Object.keys(preDownload).length > 0) {
        if (Object.keys(preDownload).length > 0) {
          rolling.inPlaceUpdateStrategy = { ...(rolling.inPlaceUpdateStrategy as JsonObject | undefined), ...preDownload };
          for (const knob of PREDOWNLOAD_KNOBS) if (Object.hasOwn(preDownload, knob.field)) setMapEntry(metadata, 'annotations', knob.annotation, undefined);
        }
        const next = omit(u, ['type', ...ROLLING_KNOBS]);
        if (u.type === 'OnDelete') next.type = 'OnDelete';
        else if (u.type !== undefined) {
          next.type = 'RollingUpdate';
          rolling.podUpdatePolicy = u.type;
        }
        if (Object.keys(rolling).length > 0) next.rollingUpdate = rolling;
        spec.updateStrategy = next;
      }
    }
  });
}

/** The pre-download annotations v1beta1 can hold as fields (when inPlaceUpdateStrategy is an object or absent). */
function movablePreDownload(metadata: JsonObject, inPlace: unknown): JsonObject {
  const fields: JsonObject = {};
  if (inPlace !== undefined && !isJsonObject(inPlace)) return fields;
  for (const knob of PREDOWNLOAD_KNOBS) {
    const text = mapEntry(metadata, 'annotations', knob.annotation);
    const value = text === undefined ? undefined : fieldValue(knob, text);
    if (value !== undefined) fields[knob.field] = value;
  }
  return fields;
}

/** A v1beta1 CloneSet as v1alpha1 (a new object; the input is not changed). */
export function toV1alpha1Plain(source: JsonObject): JsonObject {
  return convertCopy(source, V1ALPHA1, (spec, metadata) => {
    const scale = spec.scaleStrategy;
    if (scale === undefined || isJsonObject(scale)) {
      const s = scale ?? {};
      const next = omit(s, ['enablePVCReuse', 'excludePreparingDelete']);
      if (s.enablePVCReuse !== true) next.disablePVCReuse = true;
      if (Object.keys(next).length > 0) spec.scaleStrategy = next;
      else delete spec.scaleStrategy;
      // The field or the label (kept working for `kubectl label`, which now speaks v1beta1).
      if (s.excludePreparingDelete === true) setMapEntry(metadata, 'labels', EXCLUDE_LABEL, 'true');
    }

    const update = spec.updateStrategy;
    const rolling = isJsonObject(update) ? update.rollingUpdate : undefined;
    const inPlace = isJsonObject(rolling) ? rolling.inPlaceUpdateStrategy : undefined;
    const wellFormed = (update === undefined || isJsonObject(update)) && (rolling === undefined || isJsonObject(rolling)) && (inPlace === undefined || isJsonObject(inPlace));
    if (wellFormed) {
      // A field wins over its annotation; an annotation with no field stays (`kubectl annotate`).
      const kept: JsonObject | undefined = isJsonObject(inPlace) ? { ...inPlace } : undefined;
      for (const knob of PREDOWNLOAD_KNOBS) {
        const text = kept && Object.hasOwn(kept, knob.field) ? annotationText(kept[knob.field]) : undefined;
        if (text === undefined) continue;
        delete kept![knob.field];
        setMapEntry(metadata, 'annotations', knob.annotation, text);
      }
      if (isJsonObject(update)) {
        const r = isJsonObject(rolling) ? rolling : {};
        const next: JsonObject = { ...omit(update, ['type', 'rollingUpdate']), ...omit(r, ['podUpdatePolicy', 'type']) };
        if (kept) next.inPlaceUpdateStrategy = kept;
        const type = v1alpha1Type(update.type, r.podUpdatePolicy);
        if (type !== undefined) next.type = type;
        spec.updateStrategy = next;
      }
    }
  });
}

/** v1alpha1's updateStrategy.type for a v1beta1 type and podUpdatePolicy. */
function v1alpha1Type(type: unknown, policy: unknown): unknown {
  if (type === 'OnDelete') return 'OnDelete';
  if (type === 'RollingUpdate') return policy ?? 'ReCreate';
  // No type: the policy alone, if any. Not a v1beta1 type (the schema refuses one): kept as is.
  return type === undefined ? policy : type;
}
