// The CloneSet CRD's conversion webhook: apps.kruise.io/v1alpha1 <-> v1beta1, with the pure
// conversion of api-types. A CloneSet it cannot convert fails the whole review (the apiserver
// then answers the client with the message), never the process.
import { cloneSetCrd, convertCloneSet, CLONESET_OPT_IN_VERSION } from '@cloneset-suite/api-types';
import { convertAll } from './conversion-review.ts';
import type { ConversionWebhook } from './types.ts';

/** Where the CRD's conversion stanza points (service path, or appended to the URL base). */
export const CLONESET_CONVERSION_PATH = '/convert';

export function cloneSetConversion(): ConversionWebhook {
  return {
    name: 'clonesets.apps.kruise.io',
    path: CLONESET_CONVERSION_PATH,
    // v1beta1, as the CRD with the opt-in holds it (schema, columns, subresources).
    optInVersion: cloneSetCrd({ v1beta1: true }).spec.versions.find((v) => v.name === CLONESET_OPT_IN_VERSION)!,
    convert: (request) => convertAll(request, convertCloneSet),
  };
}
