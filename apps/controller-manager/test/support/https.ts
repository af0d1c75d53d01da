// POSTs JSON over TLS trusting the given CA; resolves with status, parsed body and the server's
// certificate fingerprint.
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface PostResult {
  status: number;
  body: unknown;
  /** The body as sent. */
  text: string;
  fingerprint: string;
}

export function postJson(url: string, body: unknown, ca: string, raw?: string): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
      const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text, fingerprint });
      });
    });
    req.on('error', reject);
    req.end(raw ?? JSON.stringify(body));
  });
}
