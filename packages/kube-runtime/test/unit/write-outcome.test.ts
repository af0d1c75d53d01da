// Which failed writes may have landed. A transport error counts as "may have
// landed" unless its cause proves the request never left (connect refused, no DNS answer, connect
// timeout, a refused TLS handshake): a socket closed after the body went out is not such a proof.
// A 502, or a 503 or 500 without the apiserver's Status body, is a proxy's answer: it may have
// landed too, as may a write etcd answered "request timed out" (a 500 with a Status body).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError, ConflictError } from '../../src/client/errors.ts';
import { provedNeverSent } from '../../src/client/transport-errors.ts';
import { writeOutcome, type WriteOutcome } from '../../src/client/write-outcome.ts';

const REQ = 'POST /api/v1/namespaces/ns/pods';
const coded = (code: string, message: string): Error => Object.assign(new Error(message), { code });
/** What undici's fetch throws: a TypeError "fetch failed" whose cause is the socket's error. */
const fetchFailed = (cause: unknown): TypeError => new TypeError('fetch failed', { cause });
const transport = (cause: unknown): ApiError => new ApiError(0, 'TransportError', `fetch failed (${REQ})`, undefined, REQ, { cause });

describe('writeOutcome', () => {
  it.each<[string, unknown, WriteOutcome]>([
    ['socket closed mid-request (UND_ERR_SOCKET, other side closed)', transport(fetchFailed(coded('UND_ERR_SOCKET', 'other side closed'))), 'unknown'],
    ['connection reset (ECONNRESET)', transport(fetchFailed(coded('ECONNRESET', 'read ECONNRESET'))), 'unknown'],
    ['broken pipe while writing the body (EPIPE)', transport(fetchFailed(coded('EPIPE', 'write EPIPE'))), 'unknown'],
    ['a body timeout after the request went out', transport(fetchFailed(coded('UND_ERR_BODY_TIMEOUT', 'Body Timeout Error'))), 'unknown'],
    ['a transport error without any cause', new ApiError(0, 'TransportError', 'fetch failed', undefined, REQ), 'unknown'],
    ['a cause without a code', transport(fetchFailed(new Error('something broke'))), 'unknown'],
    ['connection refused (ECONNREFUSED)', transport(fetchFailed(coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6443'))), 'failed'],
    ['no DNS answer (ENOTFOUND)', transport(fetchFailed(coded('ENOTFOUND', 'getaddrinfo ENOTFOUND apiserver'))), 'failed'],
    ['DNS try again (EAI_AGAIN)', transport(fetchFailed(coded('EAI_AGAIN', 'getaddrinfo EAI_AGAIN apiserver'))), 'failed'],
    ['connect timeout (UND_ERR_CONNECT_TIMEOUT)', transport(fetchFailed(coded('UND_ERR_CONNECT_TIMEOUT', 'Connect Timeout Error'))), 'failed'],
    ['a refused TLS handshake (self-signed)', transport(fetchFailed(coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))), 'failed'],
    ['every address refused (AggregateError)', transport(fetchFailed(Object.assign(new AggregateError([coded('ECONNREFUSED', 'v4'), coded('ECONNREFUSED', 'v6')]), {}))), 'failed'],
    ['one address refused, the other reset (AggregateError)', transport(fetchFailed(new AggregateError([coded('ECONNREFUSED', 'v4'), coded('ECONNRESET', 'v6')]))), 'unknown'],
    ['the client deadline (reason Timeout, code 0)', new ApiError(0, 'Timeout', 'no answer within 60000 ms', undefined, REQ), 'unknown'],
    ['504 from the apiserver', new ApiError(504, 'Timeout', 'request did not complete', undefined, REQ), 'unknown'],
    ['502 from a proxy in front of the apiserver (no Status body)', new ApiError(502, 'Unknown', 'HTTP 502', undefined, REQ), 'unknown'],
    ['502 with a Status body (an aggregated API server unreachable)', new ApiError(502, 'InternalError', 'error trying to reach service', undefined, REQ, { statusBody: true }), 'unknown'],
    ['503 from a load balancer (a page, no Status body)', new ApiError(503, 'ServiceUnavailable', '<html>503</html>', undefined, REQ), 'unknown'],
    ["the apiserver's own 503 (a Status body: it did not take the request)", new ApiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', undefined, REQ, { statusBody: true }), 'failed'],
    ["a 500 without a Status body (a proxy's error page)", new ApiError(500, 'InternalError', '<html>500 Internal Server Error</html>', undefined, REQ), 'unknown'],
    ["etcd's request timed out, passed on as the apiserver's 500", new ApiError(500, 'InternalError', 'etcdserver: request timed out', undefined, REQ, { statusBody: true }), 'unknown'],
    ['etcd timed out after a leader change (500)', new ApiError(500, 'InternalError', 'rpc error: code = Unavailable desc = etcdserver: request timed out, possibly due to previous leader failure', undefined, REQ, { statusBody: true }), 'unknown'],
    ["the apiserver's own 500 that is not a timeout (a Status body)", new ApiError(500, 'InternalError', 'Internal error occurred: resource quota evaluation failed', undefined, REQ, { statusBody: true }), 'failed'],
    ['an admission webhook that timed out (500: refused before storage)', new ApiError(500, 'InternalError', 'Internal error occurred: failed calling webhook "pods.example.io": context deadline exceeded', undefined, REQ, { statusBody: true }), 'failed'],
    ['a conflict', new ConflictError(409, 'Conflict', 'the object has been modified', undefined, REQ), 'conflict'],
    ['a refusal (403 quota)', new ApiError(403, 'Forbidden', 'exceeded quota', undefined, REQ), 'failed'],
    ['not an API error', new Error('bug'), 'failed'],
  ])('%s: %s', (_name, err, expected) => {
    expect(writeOutcome(err)).toBe(expected);
  });

  it('an aborted reconcile signal makes any error unknown', () => {
    const ac = new AbortController();
    ac.abort(new Error('deadline'));
    expect(writeOutcome(transport(coded('ECONNREFUSED', 'refused')), ac.signal)).toBe('unknown');
  });

  it('property: a transport error is a failure exactly when some depth of its cause chain carries a never-sent code', () => {
    const neverSent = fc.constantFrom('ECONNREFUSED', 'ENOTFOUND', 'UND_ERR_CONNECT_TIMEOUT');
    const maybeSent = fc.constantFrom('UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_ABORTED', 'SOMETHING_NEW');
    fc.assert(
      fc.property(fc.oneof(neverSent.map((c) => [c, true] as const), maybeSent.map((c) => [c, false] as const)), fc.integer({ min: 0, max: 6 }), ([code, proof], depth) => {
        let cause: unknown = coded(code, code);
        for (let i = 0; i < depth; i++) cause = new Error(`wrapper ${i}`, { cause });
        expect(provedNeverSent(cause)).toBe(proof);
        expect(writeOutcome(transport(cause))).toBe(proof ? 'failed' : 'unknown');
      }),
    );
  });

  it('a cause chain with a cycle ends as unknown instead of looping', () => {
    const a: { code?: string; cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    expect(provedNeverSent(a)).toBe(false);
  });
});
