// /healthz and /readyz in the apiserver's style: 200 "ok", or 500 listing the failed checks;
// ?verbose lists every check. Each check is a named boolean function.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

export type Check = () => boolean;

export interface ProbeChecks {
  healthz: Record<string, Check>;
  readyz: Record<string, Check>;
}

function runChecks(checks: Record<string, Check>, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const results = Object.entries(checks).map(([name, check]) => {
    let ok: boolean;
    try {
      ok = check();
    } catch {
      ok = false;
    }
    return { name, ok };
  });
  const failed = results.filter((r) => !r.ok);
  const verbose = Object.hasOwn(req.query ?? {}, 'verbose');
  void reply.type('text/plain; charset=utf-8');
  if (failed.length === 0 && !verbose) return reply.code(200).send('ok');
  const lines = results.map((r) => `[${r.ok ? '+' : '-'}]${r.name} ${r.ok ? 'ok' : 'failed'}`);
  const tail = failed.length === 0 ? 'check passed' : `check failed: ${failed.map((f) => f.name).join(', ')}`;
  return reply.code(failed.length === 0 ? 200 : 500).send(`${lines.join('\n')}\n${tail}\n`);
}

export function createProbeServer(checks: ProbeChecks): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get('/healthz', (req, reply) => runChecks(checks.healthz, req, reply));
  app.get('/readyz', (req, reply) => runChecks(checks.readyz, req, reply));
  return app;
}
