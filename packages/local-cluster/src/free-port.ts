// A free loopback port, for servers the cluster, a test or the bench starts; on its own so the
// cluster code (real-node) does not import the test helpers, which import the cluster.
import { createServer } from 'node:net';

/** A loopback port nobody listens on right now (for servers a test or bench starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
