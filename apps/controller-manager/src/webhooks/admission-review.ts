// AdmissionReview v1 (Kubernetes' admission.k8s.io/v1 API): the request shape, and responses that
// allow (with a JSON patch), refuse an invalid object (422 Invalid with field causes, as the
// apiserver's own schema refusals), refuse by policy (403 Forbidden) or report an error.
import { formatFieldErrors, type FieldError, type FieldErrorType } from '@cloneset-suite/api-types';
import type { JsonPatchOperation } from './json-patch.ts';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  /** null on DELETE. */
  object?: unknown;
  /** Set on UPDATE and DELETE. */
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface AdmissionStatus {
  code: number;
  reason?: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

export interface AdmissionResponse {
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  /** base64 of the JSON Patch array. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  response: AdmissionResponse & { uid: string };
}

export class BadAdmissionReview extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadAdmissionReview';
  }
}

const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the envelope; the objects inside are left for the handler to judge. */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (!isRecord(body)) throw new BadAdmissionReview('the body is not a JSON object');
  if (body.apiVersion !== ADMISSION_API_VERSION || body.kind !== 'AdmissionReview') {
    throw new BadAdmissionReview(`expected apiVersion ${ADMISSION_API_VERSION}, kind AdmissionReview; got ${String(body.apiVersion)}, ${String(body.kind)}`);
  }
  const req = body.request;
  if (!isRecord(req)) throw new BadAdmissionReview('request is missing');
  if (typeof req.uid !== 'string' || req.uid === '') throw new BadAdmissionReview('request.uid is missing');
  if (typeof req.operation !== 'string' || !OPERATIONS.includes(req.operation)) throw new BadAdmissionReview('request.operation is missing or unknown');
  if (!isRecord(req.kind) || typeof req.kind.kind !== 'string') throw new BadAdmissionReview('request.kind is missing');
  return req as unknown as AdmissionRequest;
}

export function reviewResponse(uid: string, response: AdmissionResponse): AdmissionReview {
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid, ...response } };
}

export function allowed(patch?: readonly JsonPatchOperation[], warnings?: string[]): AdmissionResponse {
  const res: AdmissionResponse = { allowed: true };
  if (patch && patch.length > 0) {
    res.patchType = 'JSONPatch';
    res.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
  }
  if (warnings && warnings.length > 0) res.warnings = warnings;
  return res;
}

const CAUSE_TYPES: Record<FieldErrorType, string> = {
  Invalid: 'FieldValueInvalid',
  Required: 'FieldValueRequired',
  Forbidden: 'FieldValueForbidden',
  NotSupported: 'FieldValueNotSupported',
  Duplicate: 'FieldValueDuplicate',
};

export interface ObjectIdentity {
  group: string;
  kind: string;
  name: string;
}

/** The error without its leading field path, as the apiserver fills StatusCause.message. */
function errorBody(e: FieldError): string {
  const text = formatFieldErrors([e]);
  return text.startsWith(`${e.field}: `) ? text.slice(e.field.length + 2) : text;
}

function denied(code: number, reason: string, verb: string, who: ObjectIdentity, errors: readonly FieldError[]): AdmissionResponse {
  return {
    allowed: false,
    status: {
      code,
      reason,
      message: `${who.kind}.${who.group} "${who.name}" is ${verb}: ${formatFieldErrors(errors)}`,
      details: {
        name: who.name,
        group: who.group,
        kind: who.kind,
        causes: errors.map((e) => ({ reason: CAUSE_TYPES[e.type], message: errorBody(e), field: e.field })),
      },
    },
  };
}

/** The object breaks a rule: 422 Invalid, one cause per field. */
export function deniedInvalid(who: ObjectIdentity, errors: readonly FieldError[]): AdmissionResponse {
  return denied(422, 'Invalid', 'invalid', who, errors);
}

/** A policy refuses the request (deletion protection, URL allow-list): 403 Forbidden. */
export function deniedForbidden(who: ObjectIdentity, errors: readonly FieldError[]): AdmissionResponse {
  return denied(403, 'Forbidden', 'forbidden', who, errors);
}

/** The webhook could not decide (lookup failed, timed out): the request is refused with this code. */
export function errored(code: number, reason: string, message: string): AdmissionResponse {
  return { allowed: false, status: { code, reason, message } };
}

/** The name to report: metadata.name, else generateName (on CREATE), else the request's name. */
export function objectName(request: AdmissionRequest, obj: unknown): string {
  const meta = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : {};
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return request.name ?? '';
}
