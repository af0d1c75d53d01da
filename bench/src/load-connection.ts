// One kept-alive TLS connection of the load generator: writes prepared request bytes and
// resolves with the next response, one request at a time (as the apiserver's client does on
// each of its connections).
import { connect, type TLSSocket } from 'node:tls';
import { ResponseReader, type HttpResponse } from './http-response.ts';

interface Waiting {
  resolve: (r: HttpResponse) => void;
  reject: (err: Error) => void;
}

export class LoadConnection {
  private readonly reader = new ResponseReader();
  private waiting: Waiting | undefined;
  private failure: Error | undefined;
  private readonly socket: TLSSocket;

  private constructor(socket: TLSSocket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: Error) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(url: URL, ca: string): Promise<LoadConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port || 443), ca, ALPNProtocols: ['http/1.1'] }, () => {
        socket.off('error', reject);
        resolve(new LoadConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** False once the connection broke: it takes no more requests. */
  usable(): boolean {
    return this.failure === undefined;
  }

  send(request: Buffer): Promise<HttpResponse> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('a request is already in flight on this connection'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.failure ??= new Error('closed');
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    let responses: HttpResponse[];
    try {
      responses = this.reader.push(chunk);
    } catch (err) {
      this.fail(err as Error);
      this.socket.destroy();
      return;
    }
    for (const r of responses) {
      const w = this.waiting;
      this.waiting = undefined;
      if (!w) {
        this.fail(new Error(`HTTP ${r.status} response nobody asked for`));
        this.socket.destroy();
        return;
      }
      w.resolve(r);
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(err);
  }
}
