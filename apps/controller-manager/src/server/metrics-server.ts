// GET /metrics: the manager's prom-client registry in the Prometheus text format.
import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

export function createMetricsServer(registry: Registry): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/metrics', async (_req, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
  return app;
}
