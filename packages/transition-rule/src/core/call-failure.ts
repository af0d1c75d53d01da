// What a failed webhook or poll call tells the tenant: a fixed class and, for an answer outside
// 2xx, its HTTP status. Never bytes of the remote body or the address's own words: a tenant who
// points a rule at an internal address would otherwise read that service's answers (or tell open
// ports from closed ones by their error text) in its pods' reasons. The detail stays in the
// controller's log.

export const FAILURE_CLASSES = [
  'url-not-allowed',
  'address-refused',
  'invalid-ca-bundle',
  'request-too-large',
  'timeout',
  'tls-failed',
  'connection-failed',
  'http-status',
  'response-too-large',
  'response-not-json',
  'invalid-response',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export interface CallFailure {
  class: FailureClass;
  /** The answer's status, for http-status. */
  status?: number;
}

/** The text a pod's reason, the rule status and Events carry for a failure. */
export function failureText(failure: CallFailure): string {
  return failure.class === 'http-status' && failure.status !== undefined ? `HTTP ${failure.status}` : failure.class;
}
