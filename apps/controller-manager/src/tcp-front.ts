// A loopback TCP front for several manager replicas' webhook ports, as a Service would be: each
// connection goes to the first replica that accepts it, so the apiserver's admission calls reach
// whichever replica is alive (TLS passes through untouched).
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpFront {
  port: number;
  close(): Promise<void>;
}

function dial(ports: readonly number[], i = 0): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port: ports[i]! });
    s.once('connect', () => resolve(s));
    s.once('error', (err) => {
      if (i + 1 < ports.length) dial(ports, i + 1).then(resolve, reject);
      else reject(err);
    });
  });
}

export function startTcpFront(port: number, targets: readonly number[]): Promise<TcpFront> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    dial(targets).then(
      (upstream) => {
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        client.pipe(upstream).pipe(client);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        client.resume();
      },
      () => client.destroy(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        port,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(() => r()));
        },
      }),
    );
  });
}
