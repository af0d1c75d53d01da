// A Fastify instance for the probe and metrics servers, with PLAIN_SERVER_LIMITS.
import Fastify, { type FastifyInstance } from 'fastify';
import { PLAIN_SERVER_LIMITS, capConnections, fastifyTimeoutOptions, serverConstructorOptions } from './connection-limits.ts';

export function createPlainServer(): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024, ...fastifyTimeoutOptions(PLAIN_SERVER_LIMITS), http: serverConstructorOptions(PLAIN_SERVER_LIMITS) });
  capConnections(app.server, PLAIN_SERVER_LIMITS);
  return app;
}
