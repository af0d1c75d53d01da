// Time and connection limits of the manager's HTTP servers (webhooks over TLS, probes, metrics).
// Any pod that reaches a port can open connections: without limits an idle connection stays
// open for good, a client trickling its headers or body holds a socket for minutes, and
// connections pile up until memory runs out. Node's defaults: no idle timeout before the first
// request, 60 s for headers, 300 s per request, 120 s for a TLS handshake, no connection cap.
import type { Server } from 'node:http';

export interface ConnectionLimits {
  /** A connection with no byte read or written for this long is closed (before, between and during requests). */
  idleTimeoutMs: number;
  /** Connections open at once; past it new connections are closed at once. */
  maxConnections: number;
  /** The whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
}

/** Headers are a few hundred bytes: a client still sending them after this is refused (408). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A TLS handshake not done by then is dropped. */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past their headers or request timeout (its default is 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Options for Node's server constructor (Fastify's `http` or `https` option). */
export function serverConstructorOptions(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
  };
}

/** Fastify's own options for the same limits (it sets them on the server it creates). */
export function fastifyTimeoutOptions(limits: ConnectionLimits): { connectionTimeout: number; keepAliveTimeout: number; requestTimeout: number } {
  return { connectionTimeout: limits.idleTimeoutMs, keepAliveTimeout: limits.idleTimeoutMs, requestTimeout: limits.requestTimeoutMs };
}

/** What Fastify does not take as an option. */
export function capConnections(server: Server, limits: ConnectionLimits): void {
  server.maxConnections = limits.maxConnections;
}

/** The probe and metrics servers: scraped and probed every few seconds, one request at a time. */
export const PLAIN_SERVER_LIMITS: ConnectionLimits = { idleTimeoutMs: 30_000, maxConnections: 64, requestTimeoutMs: 10_000 };
