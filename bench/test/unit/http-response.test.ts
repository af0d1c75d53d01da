import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResponseReader, parseResponseHead, postRequestBytes } from '../../src/http-response.ts';

const response = (status: number, body: string, extra = ''): string =>
  `HTTP/1.1 ${status} OK\r\ncontent-type: application/json; charset=utf-8\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\nDate: Thu, 26 Nov 2026 07:00:00 GMT\r\nConnection: keep-alive\r\n\r\n${body}`;

describe('postRequestBytes', () => {
  it('writes a POST with the path, the host and the body length in bytes', () => {
    const bytes = postRequestBytes(new URL('https://127.0.0.1:9443/mutate-pod?x=1'), '{"é":1}');
    expect(bytes.toString('utf8')).toBe(
      'POST /mutate-pod?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9443\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n{"é":1}',
    );
  });
});

describe('parseResponseHead', () => {
  it.each([
    ['HTTP/1.1 200 OK\r\nContent-Length: 12', 200, 12],
    ['HTTP/1.1 413 Payload Too Large\r\ncontent-length:0', 413, 0],
    ['HTTP/1.0 503\r\nX: y\r\nCONTENT-LENGTH:  7 ', 503, 7],
  ])('%j -> status %i, %i body bytes', (head, status, contentLength) => {
    expect(parseResponseHead(head)).toEqual({ status, contentLength });
  });

  it.each([
    ['HTTP/2 200\r\nContent-Length: 1', /status line/],
    ['garbage', /status line/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked', /Content-Length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: -1', /Content-Length/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1.5', /Content-Length/],
  ])('refuses %j', (head, message) => {
    expect(() => parseResponseHead(head)).toThrow(message);
  });
});

describe('ResponseReader', () => {
  it('hands out nothing until a response is complete, then each response once, in order', () => {
    const reader = new ResponseReader();
    const first = response(200, '{"a":1}');
    expect(reader.push(Buffer.from(first.slice(0, 20)))).toEqual([]);
    expect(reader.push(Buffer.from(first.slice(20, -1)))).toEqual([]);
    const out = reader.push(Buffer.from(first.slice(-1) + response(400, '{"error":"x"}') + response(200, '')));
    expect(out.map((r) => [r.status, r.body.toString()])).toEqual([
      [200, '{"a":1}'],
      [400, '{"error":"x"}'],
      [200, ''],
    ]);
    expect(reader.buffered()).toBe(0);
  });

  it('cuts the same responses out of the stream however it is split into chunks', () => {
    const body = fc.string({ maxLength: 40, unit: 'grapheme' });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(200, 400, 500), body), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), (sent, cuts) => {
        const stream = Buffer.from(sent.map(([s, b]) => response(s, b)).join(''));
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const reader = new ResponseReader();
        const got: [number, string][] = [];
        let from = 0;
        for (const to of [...points, stream.length]) {
          for (const r of reader.push(stream.subarray(from, to))) got.push([r.status, r.body.toString('utf8')]);
          from = to;
        }
        expect(got).toEqual(sent);
        expect(reader.buffered()).toBe(0);
      }),
    );
  });
});
