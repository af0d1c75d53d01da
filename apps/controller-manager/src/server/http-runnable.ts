// A plain HTTP server (probes, metrics) as a manager Runnable on every replica: listens at start
// (a bind failure stops the manager), closes when the manager stops its every-replica runnables.
import type { FastifyInstance } from 'fastify';
import { whenAborted, type Logger, type Runnable } from '@cloneset-suite/kube-runtime';
import type { BindAddress } from '../config/values.ts';

export function httpServerRunnable(name: string, app: FastifyInstance, address: BindAddress, logger: Logger): Runnable {
  return {
    name,
    needLeaderElection: false,
    async start(signal) {
      await app.listen({ host: address.host || '::', port: address.port });
      const bound = app.server.address();
      logger.info({ server: name, port: typeof bound === 'object' && bound ? bound.port : address.port }, 'listening');
      await whenAborted(signal);
      await app.close();
    },
  };
}
