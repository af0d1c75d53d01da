// Converts one CloneSet to the version the apiserver asks for (a ConversionReview holds a list
// of them). Objects it cannot convert are refused with a message naming the object and what is
// wrong; anything inside a CloneSet that is not what the schema says is carried over unchanged.
import { cloneJson, isJsonObject, type JsonObject } from './json-object.ts';
import { cloneSetToV1alpha1, cloneSetToV1beta1 } from './carry.ts';
import { V1ALPHA1, V1BETA1 } from './plain.ts';

export const CLONESET_API_VERSIONS: readonly string[] = [V1ALPHA1, V1BETA1];

export class CloneSetConversionError extends Error {
  override name = 'CloneSetConversionError';
}

function describe(object: JsonObject): string {
  const m = isJsonObject(object.metadata) ? object.metadata : {};
  const name = typeof m.name === 'string' ? m.name : '';
  return typeof m.namespace === 'string' && m.namespace !== '' ? `${m.namespace}/${name}` : name || '(unnamed)';
}

/** `object` as `desiredApiVersion` (a new object); throws CloneSetConversionError. */
export function convertCloneSet(object: unknown, desiredApiVersion: string): JsonObject {
  if (!CLONESET_API_VERSIONS.includes(desiredApiVersion)) {
    throw new CloneSetConversionError(`cannot convert CloneSets to ${JSON.stringify(desiredApiVersion)}: served versions are ${CLONESET_API_VERSIONS.join(', ')}`);
  }
  if (!isJsonObject(object)) throw new CloneSetConversionError('cannot convert an object that is not a JSON object');
  if (object.kind !== 'CloneSet') throw new CloneSetConversionError(`cannot convert ${describe(object)}: kind is ${JSON.stringify(object.kind)}, not "CloneSet"`);
  const from = object.apiVersion;
  if (typeof from !== 'string' || !CLONESET_API_VERSIONS.includes(from)) {
    throw new CloneSetConversionError(`cannot convert CloneSet ${describe(object)}: apiVersion ${JSON.stringify(from)} is not one of ${CLONESET_API_VERSIONS.join(', ')}`);
  }
  if (from === desiredApiVersion) return cloneJson(object);
  return desiredApiVersion === V1BETA1 ? cloneSetToV1beta1(object) : cloneSetToV1alpha1(object);
}
