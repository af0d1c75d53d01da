// A hostile PodTransitionRule webhook server on loopback: every POST starts a poll task, and every
// poll of it answers "not finished" with about 1 MB of names never seen before (none of them a
// pod of the task) and a message that changes each time. Any other path counts the calls it gets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

/** Bytes of one poll answer: under the manager's 1 MiB read limit, so it is read and parsed whole. */
const POLL_ANSWER_BYTES = 960 * 1024;

export class FloodRuleServer {
  private server: Server | undefined;
  private base = '';
  private tasks = 0;
  private names = 0;
  /** Flooding poll answers sent, and the bytes of every poll answer. */
  polls = 0;
  pollBytes = 0;
  /** Off: polls are answered with no names and the same message (a tenant gone quiet). */
  flooding = true;
  /** Requests by method and path (poll GETs excluded). */
  readonly calls = new Map<string, number>();

  async listen(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  url(path: string): string {
    return this.base + path;
  }

  callsTo(method: string, path: string): number {
    return this.calls.get(`${method} ${path}`) ?? 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for await (const chunk of req) void chunk; // the body is not needed, only drained
    const { pathname } = new URL(req.url ?? '/', this.base);
    const send = (body: string): void => void res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (req.method === 'GET' && pathname === '/flood-result') {
      const body = this.flooding ? this.floodAnswer() : '{"success":true,"finished":false,"message":"waiting","finishedNames":[]}';
      if (this.flooding) this.polls++;
      this.pollBytes += body.length;
      send(body);
      return;
    }
    const key = `${req.method} ${pathname}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    if (req.method === 'POST' && pathname === '/flood') send(JSON.stringify({ success: true, poll: true, taskId: `flood-${++this.tasks}`, message: 'accepted' }));
    else send(JSON.stringify({ success: true, message: 'ok' }));
  }

  /** ~1 MB of fresh names and a fresh message: what made every round copy, sort and write more. */
  private floodAnswer(): string {
    const head = `{"success":true,"finished":false,"message":"chatty ${randomBytes(48).toString('hex')} at poll ${this.polls}","finishedNames":[`;
    const names: string[] = [];
    let size = head.length + 2;
    while (size < POLL_ANSWER_BYTES) {
      const name = `"foreign-${++this.names}"`;
      names.push(name);
      size += name.length + 1;
    }
    return `${head}${names.join(',')}]}`;
  }
}
