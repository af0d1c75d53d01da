// HTTP/1.1 responses read off a kept-alive connection, for the load generator: the request
// bytes are built once and the answers are cut out of the byte stream by Content-Length, so the
// generator spends its CPU on sending and timing, not on node:http's client machinery (it shares
// the machine with the server it measures). Only what the webhook server sends is understood:
// a status line, headers, and a body of Content-Length bytes (no chunked encoding).

export interface HttpResponse {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** A POST with a JSON body as one buffer, ready to write again and again. */
export function postRequestBytes(url: URL, body: string): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const head = [
    `POST ${url.pathname}${url.search} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/json',
    `Content-Length: ${payload.length}`,
    '',
    '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** Status and body length from a response head (status line and headers, without the blank line). */
export function parseResponseHead(head: string): { status: number; contentLength: number } {
  const lines = head.split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
  if (!status) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(lines[0]?.slice(0, 80))}`);
  let contentLength: number | undefined;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-length') contentLength = Number(line.slice(colon + 1).trim());
  }
  if (contentLength === undefined || !Number.isInteger(contentLength) || contentLength < 0) {
    throw new Error(`response without a usable Content-Length (status ${status[1]})`);
  }
  return { status: Number(status[1]), contentLength };
}

/** Collects bytes as they arrive and hands out every complete response, in order. */
export class ResponseReader {
  private pending: Buffer = Buffer.alloc(0);

  /** The responses completed by this chunk (usually none or one). Throws on a malformed head. */
  push(chunk: Buffer): HttpResponse[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const done: HttpResponse[] = [];
    for (;;) {
      const end = this.pending.indexOf(HEAD_END);
      if (end < 0) return done;
      const { status, contentLength } = parseResponseHead(this.pending.toString('latin1', 0, end));
      const bodyStart = end + HEAD_END.length;
      if (this.pending.length < bodyStart + contentLength) return done;
      done.push({ status, body: this.pending.subarray(bodyStart, bodyStart + contentLength) });
      this.pending = this.pending.subarray(bodyStart + contentLength);
    }
  }

  /** Bytes of a response not yet complete. */
  buffered(): number {
    return this.pending.length;
  }
}
