import pino, { type Logger } from 'pino';
import type { Config } from '../config';

export type { Logger };

/** Structured JSON logs; `service` tells the api and the worker apart in one stream. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, service: string): Logger {
  return pino({
    level: config.LOG_LEVEL,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
