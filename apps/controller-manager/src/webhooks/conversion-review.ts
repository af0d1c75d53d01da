// ConversionReview (apiextensions.k8s.io/v1): the request a CRD's conversion webhook gets from
// the apiserver, and the response with the converted objects or a Failure result naming why.
import { keepUnsafeIntegers } from '../server/lossless-json.ts';

export const CONVERSION_REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';

export interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: unknown[];
}

export interface ConversionResult {
  status: 'Success' | 'Failure';
  message?: string;
}

export interface ConversionResponse {
  uid: string;
  convertedObjects: unknown[];
  result: ConversionResult;
}

export interface ConversionReview {
  apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  kind: 'ConversionReview';
  response: ConversionResponse;
}

export class BadConversionReview extends Error {
  override name = 'BadConversionReview';
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the envelope; the objects inside are left for the converter to judge. */
export function parseConversionReview(body: unknown): ConversionRequest {
  if (!isRecord(body)) throw new BadConversionReview('the body is not a JSON object');
  if (body.apiVersion !== CONVERSION_REVIEW_API_VERSION || body.kind !== 'ConversionReview') {
    throw new BadConversionReview(`expected apiVersion ${CONVERSION_REVIEW_API_VERSION}, kind ConversionReview; got ${String(body.apiVersion)}, ${String(body.kind)}`);
  }
  const req = body.request;
  if (!isRecord(req)) throw new BadConversionReview('request is missing');
  if (typeof req.uid !== 'string' || req.uid === '') throw new BadConversionReview('request.uid is missing');
  if (typeof req.desiredAPIVersion !== 'string' || req.desiredAPIVersion === '') throw new BadConversionReview('request.desiredAPIVersion is missing');
  if (!Array.isArray(req.objects)) throw new BadConversionReview('request.objects is not a list');
  return { uid: req.uid, desiredAPIVersion: req.desiredAPIVersion, objects: req.objects };
}

/**
 * A ConversionReview from its body's text: parsed natively, its envelope checked, then parsed
 * again losslessly only if an integer in it needs that (keepUnsafeIntegers).
 */
export function readConversionReview(text: string): ConversionRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BadConversionReview(`the body is not JSON: ${(err as Error).message.slice(0, 200)}`);
  }
  const request = parseConversionReview(parsed);
  const exact = keepUnsafeIntegers(text, parsed);
  return exact === parsed ? request : parseConversionReview(exact);
}

export function conversionReview(response: ConversionResponse): ConversionReview {
  return { apiVersion: CONVERSION_REVIEW_API_VERSION, kind: 'ConversionReview', response };
}

/** Every object converted by `convert`, or a Failure naming the first one it refused. */
export function convertAll(request: ConversionRequest, convert: (object: unknown, desiredApiVersion: string) => unknown): ConversionResponse {
  try {
    return { uid: request.uid, convertedObjects: request.objects.map((o) => convert(o, request.desiredAPIVersion)), result: { status: 'Success' } };
  } catch (err) {
    return { uid: request.uid, convertedObjects: [], result: { status: 'Failure', message: (err as Error).message } };
  }
}
