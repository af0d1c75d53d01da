// A client of the webhook port that any pod could be: it POSTs 16 MiB of junk shaped as a
// ConversionReview to /convert over and over, from several connections at once, alternately
// announcing the size (Content-Length) and streaming it chunked (the server must count it). It
// stops sending once answered: what it spends beyond that would be its own CPU, not the manager's.
import { request } from 'node:https';

const JUNK_BYTES = 16 * 1024 * 1024;

/** Valid JSON of small numbers inside a ConversionReview envelope: the costliest shape to parse. */
function junk(): Buffer {
  const numbers = `[${'1,'.repeat(Math.floor(JUNK_BYTES / 2))}1]`;
  return Buffer.from(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"apps.kruise.io/v1beta1","objects":${numbers}}}`);
}

export interface JunkPoster {
  /** Answers by status ('reset' when the server closed the connection before answering). */
  readonly outcomes: Map<string, number>;
  stop(): Promise<void>;
}

function postOnce(url: string, body: Buffer, chunked: boolean): Promise<string> {
  return new Promise((resolve) => {
    let status = '';
    const req = request(url, {
      method: 'POST',
      rejectUnauthorized: false,
      agent: false,
      timeout: 30_000,
      headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(body.length) }) },
    }, (res) => {
      status = String(res.statusCode ?? 0);
      // Answered: the rest of the body would cost only this client (a remote attacker's CPU).
      req.destroy();
      resolve(status);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    // A server that answers before reading the whole body may then reset the socket: its answer counts.
    req.on('error', (err) => resolve(status || (err.message === 'timeout' ? 'timeout' : 'reset')));
    if (chunked) {
      const step = 1024 * 1024;
      for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** `connections` loops, each posting, waiting for the answer, pausing `pauseMs` and posting again. */
export function startJunkPoster(url: string, connections: number, pauseMs: number): JunkPoster {
  const body = junk();
  const outcomes = new Map<string, number>();
  let running = true;
  const loops = Array.from({ length: connections }, async (_, i) => {
    let chunked = i % 2 === 1;
    while (running) {
      const outcome = await postOnce(url, body, chunked);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      chunked = !chunked;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  });
  return {
    outcomes,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}
