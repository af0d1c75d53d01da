// The webhook server: fastify over TLS, one POST route per registered admission or conversion
// webhook, body size and per-request time limits, connection limits (connection-limits.ts) and
// caps on requests in flight (429 past them; a smaller one for conversion, whose bodies are
// whole list pages), and, with a client CA, admission only for clients it verified. It starts listening once the first certificate arrives and swaps
// certificates in place afterwards (rotation, cert-manager renewals).
import type { Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '@cloneset-suite/kube-runtime';
import { BadAdmissionReview, errored, parseAdmissionReview, reviewResponse, type AdmissionResponse } from '../webhooks/admission-review.ts';
import { BadConversionReview, conversionReview, readConversionReview } from '../webhooks/conversion-review.ts';
import type { AdmissionWebhook, ConversionWebhook } from '../webhooks/types.ts';
import { RequestContext } from './admission-context.ts';
import { clientCertificateOptions, presentsTrustedCertificate } from './client-authentication.ts';
import { TLS_HANDSHAKE_TIMEOUT_MS, capConnections, fastifyTimeoutOptions, serverConstructorOptions, type ConnectionLimits } from './connection-limits.ts';
import { InFlightLimit } from './in-flight-limit.ts';
import type { WebhookMetrics } from './webhook-metrics.ts';
import type { ServingCertificate } from '../certs/serving-certificate.ts';
import type { ManagerConfig } from '../config/flags.ts';

export interface WebhookServerOptions {
  host: string;
  port: number;
  webhooks: readonly AdmissionWebhook[];
  conversions?: readonly ConversionWebhook[];
  requestTimeoutMs: number;
  maxBodyBytes: number;
  /** Body limit of a ConversionReview (a whole page of a list comes in one); default maxBodyBytes. */
  conversionMaxBodyBytes?: number;
  limits: WebhookServerLimits;
  /**
   * PEM CA bundle: admission requests are served only to clients presenting a certificate it
   * verifies (401 otherwise); ConversionReviews are not checked (client-authentication.ts says why).
   */
  clientCa?: string;
  logger: Logger;
  metrics?: WebhookMetrics;
}

export interface WebhookServerLimits {
  /** A connection idle this long is closed. */
  idleTimeoutMs: number;
  maxConnections: number;
  /** Requests served at once, admission and conversion together. */
  maxRequestsInFlight: number;
  /** Of those, ConversionReviews (each buffers up to conversionMaxBodyBytes). */
  conversionMaxRequestsInFlight: number;
}

/** The limits the flags set. */
export function webhookServerLimits(config: ManagerConfig): WebhookServerLimits {
  return {
    idleTimeoutMs: config.webhookIdleTimeoutMs,
    maxConnections: config.webhookMaxConnections,
    maxRequestsInFlight: config.webhookMaxRequestsInFlight,
    conversionMaxRequestsInFlight: config.webhookConversionMaxRequestsInFlight,
  };
}

class TimeoutError extends Error {}

export class WebhookServer {
  private readonly o: WebhookServerOptions;
  private readonly logger: Logger;
  private app: FastifyInstance<HttpsServer> | undefined;
  private listening: Promise<void> | undefined;
  private current: ServingCertificate | undefined;
  private ready = false;
  private boundPort: number | undefined;

  constructor(options: WebhookServerOptions) {
    this.o = options;
    this.logger = options.logger.child({ subsystem: 'webhook-server' });
  }

  /** True once a certificate is loaded and the server listens. */
  isReady(): boolean {
    return this.ready;
  }

  /** The port actually bound (differs from the option when it was 0). */
  port(): number | undefined {
    return this.boundPort;
  }

  /** Loads a (new) serving certificate; the first one starts the server. */
  async setCertificate(c: ServingCertificate): Promise<void> {
    if (this.current && this.current.cert === c.cert && this.current.key === c.key) return;
    this.current = c;
    if (!this.app) {
      this.app = this.build(c);
      this.listening = this.app.listen({ host: this.o.host || '::', port: this.o.port }).then(() => {
        const addr = this.app?.server.address();
        this.boundPort = typeof addr === 'object' && addr ? addr.port : this.o.port;
        this.ready = true;
        this.logger.info({ port: this.boundPort, paths: this.paths() }, 'serving admission and conversion webhooks');
      });
      await this.listening;
      return;
    }
    await this.listening;
    // The new context replaces the whole old one: the client CA goes with it.
    this.app.server.setSecureContext({ cert: c.cert, key: c.key, ca: this.o.clientCa });
    this.logger.info('serving certificate reloaded');
  }

  /** Stops accepting connections and waits for in-flight requests. */
  async close(): Promise<void> {
    this.ready = false;
    await this.listening?.catch(() => undefined);
    await this.app?.close();
  }

  private build(c: ServingCertificate): FastifyInstance<HttpsServer> {
    // The body must arrive within the request timeout, plus a margin for the answer's own limit.
    const connectionLimits: ConnectionLimits = { idleTimeoutMs: this.o.limits.idleTimeoutMs, maxConnections: this.o.limits.maxConnections, requestTimeoutMs: this.o.requestTimeoutMs + 2_000 };
    const app = Fastify({
      https: { cert: c.cert, key: c.key, minVersion: 'TLSv1.2', handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS, ...clientCertificateOptions(this.o.clientCa), ...serverConstructorOptions(connectionLimits) },
      bodyLimit: this.o.maxBodyBytes,
      ...fastifyTimeoutOptions(connectionLimits),
      logger: false,
      return503OnClosing: true,
    }) as unknown as FastifyInstance<HttpsServer>;
    capConnections(app.server, connectionLimits);
    const all = new InFlightLimit(this.o.limits.maxRequestsInFlight);
    const conversions = new InFlightLimit(Math.min(this.o.limits.conversionMaxRequestsInFlight, this.o.limits.maxRequestsInFlight));
    for (const hook of this.o.webhooks) {
      this.route(app, hook.path, this.o.maxBodyBytes, [all], this.o.clientCa !== undefined, async (body) => {
        const request = parseAdmissionReview(body);
        return reviewResponse(request.uid, await this.answer(hook, request));
      });
    }
    // Conversion answers with whole objects: its scope takes the body as text, for
    // readConversionReview to check the envelope before any costly parse.
    const conversionLimit = this.o.conversionMaxBodyBytes ?? this.o.maxBodyBytes;
    void app.register((scope, _opts, done) => {
      scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: conversionLimit }, (_req, body, parsed) => parsed(null, body));
      for (const conversion of this.o.conversions ?? []) {
        this.route(scope as unknown as FastifyInstance<HttpsServer>, conversion.path, conversionLimit, [all, conversions], false, (body) => {
          const request = readConversionReview(body as string);
          const response = conversion.convert(request);
          if (response.result.status === 'Failure') this.logger.warn({ webhook: conversion.name, uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, message: response.result.message }, 'conversion refused');
          else if (this.logger.isLevelEnabled('debug')) this.logger.debug({ webhook: conversion.name, uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, objects: request.objects.length }, 'converted');
          return Promise.resolve(conversionReview(response));
        });
      }
      done();
    });
    app.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
      void reply.code(status).send({ error: err.message });
    });
    return app;
  }

  /** Every path served, admission and conversion. */
  paths(): string[] {
    return [...this.o.webhooks.map((w) => w.path), ...(this.o.conversions ?? []).map((c) => c.path)];
  }

  /**
   * One POST route: a review that is not one is answered 400; every request is counted and timed.
   * Before its body is read it is answered 401 when it must come from a verified client and does
   * not, else takes a slot of each limit or is answered 429.
   */
  private route(app: FastifyInstance<HttpsServer>, path: string, bodyLimit: number, limits: readonly InFlightLimit[], authenticate: boolean, answer: (body: unknown) => Promise<unknown>): void {
    const onRequest = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (authenticate && !presentsTrustedCertificate(req.raw.socket as TLSSocket)) {
        this.o.metrics?.requests.inc({ webhook: path, code: '401' });
        this.logger.debug({ path, remote: req.raw.socket.remoteAddress }, 'no client certificate the client CA verifies: answered 401');
        await reply.code(401).send({ error: 'a client certificate signed by the webhook client CA is required' });
        return;
      }
      const releases: (() => void)[] = [];
      for (const limit of limits) {
        const release = limit.tryAcquire();
        if (!release) {
          for (const r of releases) r();
          this.o.metrics?.requests.inc({ webhook: path, code: '429' });
          this.logger.debug({ path, maxInFlight: limit.max }, 'too many requests in flight: answered 429');
          await reply.code(429).header('retry-after', '1').send({ error: `more than ${limit.max} requests in flight` });
          return;
        }
        releases.push(release);
      }
      // The response's 'close' comes once the answer is sent or the client went away.
      reply.raw.once('close', () => releases.forEach((r) => r()));
    };
    app.post(path, { bodyLimit, onRequest }, async (req, reply) => {
      const metrics = this.o.metrics;
      const started = process.hrtime.bigint();
      metrics?.inFlight.inc({ webhook: path });
      let code = 200;
      try {
        try {
          return await reply.send(await answer(req.body));
        } catch (err) {
          if (!(err instanceof BadAdmissionReview) && !(err instanceof BadConversionReview)) throw err;
          code = 400;
          return await reply.code(400).send({ error: err.message });
        }
      } finally {
        metrics?.inFlight.dec({ webhook: path });
        metrics?.requests.inc({ webhook: path, code: String(code) });
        metrics?.latency.observe({ webhook: path }, Number(process.hrtime.bigint() - started) / 1e9);
      }
    });
  }

  private async answer(hook: AdmissionWebhook, request: ReturnType<typeof parseAdmissionReview>): Promise<AdmissionResponse> {
    const ctx = new RequestContext(this.logger, hook.name, request);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Settle first: a handler that returns as soon as it sees the abort must not win the race.
        reject(new TimeoutError('timed out'));
        ctx.abort(new TimeoutError('timed out'));
      }, this.o.requestTimeoutMs);
    });
    try {
      const response = await Promise.race([hook.handle(request, ctx), timeout]);
      if (this.logger.isLevelEnabled('debug')) ctx.logger.debug({ allowed: response.allowed, code: response.status?.code }, 'admission decided');
      return response;
    } catch (err) {
      if (err instanceof TimeoutError) {
        ctx.logger.warn({ timeoutMs: this.o.requestTimeoutMs }, 'admission request timed out');
        return errored(504, 'Timeout', `webhook ${hook.name} did not decide within ${this.o.requestTimeoutMs}ms`);
      }
      ctx.logger.error({ err }, 'admission handler failed');
      return errored(500, 'InternalError', `webhook ${hook.name} failed: ${(err as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}
