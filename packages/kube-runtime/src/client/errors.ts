// Typed API errors from the apiserver's Status body, as apimachinery's StatusError and its
// IsNotFound/IsConflict/... helpers. Each error names the object it is about.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The metav1.Status object the apiserver answers errors with. */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export interface ApiErrorOptions extends ErrorOptions {
  /** The answer's body was a Kubernetes Status (see ApiError.statusBody). */
  statusBody?: boolean;
}

export class ApiError extends Error {
  /** HTTP status code (0 when the request never got an answer). */
  readonly code: number;
  /** The Status reason, e.g. NotFound, Conflict, AlreadyExists, Invalid, Expired. */
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** "METHOD path" of the request, for logs. */
  readonly request: string;
  /**
   * The answer carried a Kubernetes Status body: the apiserver itself refused the request. False
   * when a proxy or load balancer in front of it answered (a bare 502 or 503 page), or no answer came.
   */
  readonly statusBody: boolean;

  /** `options.cause`: the transport's own error when no answer came (its code says how far the request got). */
  constructor(code: number, reason: string, message: string, details: StatusDetails | undefined, request: string, options?: ApiErrorOptions) {
    super(message, options);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.request = request;
    this.statusBody = options?.statusBody ?? false;
  }
}

export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}
/** 409 on an optimistic-concurrency failure (stale resourceVersion, failed precondition). */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
}
export class AlreadyExistsError extends ApiError {
  override readonly name = 'AlreadyExistsError';
}
/** 422 with the failing fields in `causes`. */
export class InvalidError extends ApiError {
  override readonly name = 'InvalidError';
  get causes(): StatusCause[] {
    return this.details?.causes ?? [];
  }
}
/** 429 (or 5xx with Retry-After): wait `retryAfterSeconds` before retrying. */
export class TooManyRequestsError extends ApiError {
  override readonly name = 'TooManyRequestsError';
  get retryAfterSeconds(): number {
    return this.details?.retryAfterSeconds ?? 1;
  }
}
/** 410 Gone / reason Expired: the resourceVersion is too old (compacted); relist. */
export class GoneError extends ApiError {
  override readonly name = 'GoneError';
}
export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
}
export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
}

/** Builds the typed error for an HTTP answer that was not 2xx. */
export function errorFromResponse(
  code: number,
  bodyText: string,
  retryAfterHeader: string | null,
  request: string,
): ApiError {
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(bodyText) as unknown;
    if (parsed && typeof parsed === 'object' && (parsed as Status).kind === 'Status') status = parsed;
  } catch {
    // Not JSON (proxies, plain-text 5xx): keep the raw text as the message.
  }
  if (status) return errorFromStatus(status, request, retryAfterHeader, code);
  return errorFromStatus({ code, message: bodyText.slice(0, 500) || `HTTP ${code}` }, request, retryAfterHeader, code, { statusBody: false });
}

/** Builds the typed error for a Status (also used for watch ERROR events). */
export function errorFromStatus(
  status: Status,
  request: string,
  retryAfterHeader?: string | null,
  httpCode?: number,
  options: ApiErrorOptions = { statusBody: true },
): ApiError {
  const code = status.code ?? httpCode ?? 0;
  const reason = status.reason ?? reasonForCode(code);
  const message = `${status.message ?? reason} (${request})`;
  let details = status.details;
  const retryAfter = retryAfterHeader ? Number.parseInt(retryAfterHeader, 10) : NaN;
  if (Number.isFinite(retryAfter) && details?.retryAfterSeconds === undefined) {
    details = { ...details, retryAfterSeconds: retryAfter };
  }
  const Ctor = errorClass(code, reason);
  return new Ctor(code, reason, message, details, request, options);
}

function errorClass(code: number, reason: string): typeof ApiError {
  switch (reason) {
    case 'NotFound':
      return NotFoundError;
    case 'AlreadyExists':
      return AlreadyExistsError;
    case 'Conflict':
      return ConflictError;
    case 'Invalid':
      return InvalidError;
    case 'TooManyRequests':
      return TooManyRequestsError;
    case 'Expired':
    case 'Gone':
      return GoneError;
    case 'Forbidden':
      return ForbiddenError;
    case 'Unauthorized':
      return UnauthorizedError;
  }
  switch (code) {
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 410:
      return GoneError;
    case 422:
      return InvalidError;
    case 429:
      return TooManyRequestsError;
    case 403:
      return ForbiddenError;
    case 401:
      return UnauthorizedError;
  }
  return ApiError;
}

function reasonForCode(code: number): string {
  const reasons: Record<number, string> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Gone',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    503: 'ServiceUnavailable',
    504: 'Timeout',
  };
  return reasons[code] ?? 'Unknown';
}

export const isNotFound = (err: unknown): err is NotFoundError => err instanceof NotFoundError;
export const isConflict = (err: unknown): err is ConflictError => err instanceof ConflictError;
export const isAlreadyExists = (err: unknown): err is AlreadyExistsError => err instanceof AlreadyExistsError;
export const isInvalid = (err: unknown): err is InvalidError => err instanceof InvalidError;
export const isTooManyRequests = (err: unknown): err is TooManyRequestsError => err instanceof TooManyRequestsError;
export const isGone = (err: unknown): err is GoneError => err instanceof GoneError;
