// /healthz and /readyz (probeAnswer says what they answer). Each check is a named boolean
// function; a throwing check counts as failed. /readyz runs its gating checks and, for
// ?verbose and the metrics, the informational ones.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import { createPlainServer } from './plain-server.ts';
import { probeAnswer, type CheckResult } from './probe-report.ts';

export type Check = () => boolean;

export interface ProbeChecks {
  healthz: Record<string, Check>;
  /** Each must pass for /readyz to answer 200. */
  readyz: Record<string, Check>;
  /** Listed on /readyz?verbose and in the metrics; never make /readyz fail. */
  readyzInformational?: Record<string, Check>;
}

function passes(check: Check): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

function run(checks: Record<string, Check>, gating: boolean): CheckResult[] {
  return Object.entries(checks).map(([name, check]) => ({ name, ok: passes(check), gating }));
}

function readyzResults(checks: ProbeChecks): CheckResult[] {
  return [...run(checks.readyz, true), ...run(checks.readyzInformational ?? {}, false)];
}

const isVerbose = (req: FastifyRequest): boolean => Object.hasOwn(req.query ?? {}, 'verbose');

export function createProbeServer(checks: ProbeChecks): FastifyInstance {
  const app = createPlainServer();
  const answer = (results: CheckResult[], req: FastifyRequest) => probeAnswer(results, isVerbose(req));
  app.get('/healthz', (req, reply) => {
    const a = answer(run(checks.healthz, true), req);
    return reply.code(a.code).type('text/plain; charset=utf-8').send(a.body);
  });
  app.get('/readyz', (req, reply) => {
    const a = answer(readyzResults(checks), req);
    return reply.code(a.code).type('text/plain; charset=utf-8').send(a.body);
  });
  return app;
}

/** `cloneset_suite_readiness_check{check, gating}`: 1 while a /readyz check passes, read at scrape time. */
export function registerReadinessMetrics(registry: Registry, checks: ProbeChecks): void {
  new Gauge({
    name: 'cloneset_suite_readiness_check',
    help: 'Whether a /readyz check passes (1) or not (0); gating="false" checks are information and never make /readyz fail.',
    labelNames: ['check', 'gating'],
    registers: [registry],
    collect() {
      for (const r of readyzResults(checks)) this.set({ check: r.name, gating: String(r.gating) }, r.ok ? 1 : 0);
    },
  });
}
