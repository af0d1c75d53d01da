// Structured JSON logs (pino). Controllers derive children carrying controller, key and reconcileID.
import { pino } from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';

export type { Logger } from 'pino';
export type LogLevel = Level | 'silent';

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout by default. Tests pass a stream to capture lines. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. {component: 'controller-manager'}. */
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const opts = {
    level: options.level ?? 'info',
    base: options.base ?? {},
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

/** A logger that drops everything: the default where none is given. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
