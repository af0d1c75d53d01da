// A small HTTP/HTTPS server speaking seed 000's webhook protocol, loopback only, for unit and
// cluster tests: immediate success, partial success, poll with progress, stop, 500, hang, garbage
// JSON and an oversized body. Every request is recorded.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificates } from './certificates.ts';

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface PollTaskState {
  finishedNames: string[];
  finished: boolean;
  stop: boolean;
  message: string;
}

/** A responder: JSON to send, or a special behaviour. */
export type Reply = { status?: number; json?: unknown; raw?: string } | 'hang';
export type Responder = (call: RecordedCall) => Reply;

export class TestWebhookServer {
  readonly calls: RecordedCall[] = [];
  /** Poll tasks by id; tests edit them to make progress. */
  readonly tasks = new Map<string, PollTaskState>();
  private readonly routes = new Map<string, Responder>();
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  private base = '';
  private taskSeq = 0;

  constructor() {
    this.routes.set('POST /ok', () => ({ json: { success: true, message: 'ok' } }));
    this.routes.set('POST /partial', (c) => ({ json: { success: false, message: 'not yet', finishedNames: [names(c)[0]].filter(Boolean) } }));
    this.routes.set('POST /poll', (c) => {
      const taskId = `task-${++this.taskSeq}`;
      this.tasks.set(taskId, { finishedNames: [], finished: false, stop: false, message: 'started' });
      return { json: { success: true, poll: true, taskId, message: `accepted ${names(c).length}` } };
    });
    this.routes.set('POST /async', (c) => {
      const body = c.body as { traceId: string };
      this.tasks.set(body.traceId, { finishedNames: [], finished: false, stop: false, message: 'started' });
      return { json: { success: true, async: true, message: 'accepted' } };
    });
    this.routes.set('GET /result', (c) => {
      const id = c.query.get('task-id') ?? c.query.get('id') ?? '';
      const t = this.tasks.get(id);
      if (!t) return { status: 404, json: { success: false, message: `no task ${id}` } };
      return { json: { success: true, ...t } };
    });
    this.routes.set('POST /500', () => ({ status: 500, raw: 'internal error' }));
    this.routes.set('POST /hang', () => 'hang');
    this.routes.set('POST /garbage', () => ({ raw: '{"success": tru' }));
    this.routes.set('POST /huge', () => ({ raw: JSON.stringify({ success: true, message: 'x'.repeat(2 * 1024 * 1024) }) }));
  }

  on(method: 'GET' | 'POST', path: string, responder: Responder): this {
    this.routes.set(`${method} ${path}`, responder);
    return this;
  }

  async listen(tls?: TestCertificates): Promise<this> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => void this.handle(req, res);
    this.server = tls ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, handler) : createHttpServer(handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.base = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return this;
  }

  url(path: string): string {
    return this.base + path;
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  /** Answers every hanging request with success. */
  releaseHanging(): void {
    for (const res of this.hanging) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: true, message: 'released' }));
    }
    this.hanging.clear();
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const call: RecordedCall = { method: req.method ?? '', path: url.pathname, query: url.searchParams, body };
    this.calls.push(call);
    const responder = this.routes.get(`${call.method} ${call.path}`);
    const reply: Reply = responder ? responder(call) : { status: 404, raw: 'not found' };
    if (reply === 'hang') {
      this.hanging.add(res);
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
    res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
  }
}

function names(call: RecordedCall): string[] {
  return ((call.body as { resources?: { name: string }[] } | undefined)?.resources ?? []).map((r) => r.name);
}
