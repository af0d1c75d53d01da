// Whether a request that got no answer can have reached the apiserver. A
// connection reset or a socket closed mid-request (undici's UND_ERR_SOCKET, "other side closed",
// ECONNRESET, EPIPE) may come after the body was sent, so the write may have landed. Only an error
// from before the first byte left proves it did not: no connection, no address, a refused TLS
// handshake. Anything else, an unrecognised code included, counts as "may have landed".

/** Error codes (Node's and undici's) raised before a request is written to a connection. */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Causes are followed this deep; a cycle or an absurd chain counts as unknown. */
const MAX_CAUSE_DEPTH = 8;

const codeOf = (err: object): unknown => (err as { code?: unknown }).code;

/**
 * True when `err` (a transport error, with its causes) proves the request never reached the server.
 * An AggregateError (several addresses tried, as Node's happy eyeballs does) proves it only when
 * every one of its errors does.
 */
export function provedNeverSent(err: unknown, depth = 0): boolean {
  if (depth > MAX_CAUSE_DEPTH || typeof err !== 'object' || err === null) return false;
  const code = codeOf(err);
  if (typeof code === 'string' && NEVER_SENT_CODES.has(code)) return true;
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.every((e) => provedNeverSent(e, depth + 1));
  return provedNeverSent((err as { cause?: unknown }).cause, depth + 1);
}
