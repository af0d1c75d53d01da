// GET /metrics: the manager's prom-client registry in the Prometheus text format.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { createPlainServer } from './plain-server.ts';

export function createMetricsServer(registry: Registry): FastifyInstance {
  const app = createPlainServer();
  app.get('/metrics', async (_req, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
  return app;
}
