// The worker process's Temporal SDK lines (the SDK's TypeScript side and, forwarded, its Rust core) as JSON lines
// through pino, like Herald's own: each SDK level maps to the pino level of the same name.
import type { Logger as TemporalLogger, LogLevel, LogMetadata } from '@temporalio/worker';
import { pino, type Logger as PinoLogger } from 'pino';
import type { Config } from '../config.js';

const PINO_LEVEL = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The SDK's level for LOG_LEVEL: WARN at most (its INFO lines are a few per workflow task and activity), more
 * verbose with LOG_LEVEL=debug or trace; `silent` keeps ERROR (pino then writes nothing anyway).
 */
export function temporalLogLevel(level: Config['LOG_LEVEL']): LogLevel {
  if (level === 'trace') return 'TRACE';
  if (level === 'debug') return 'DEBUG';
  if (level === 'warn' || level === 'info') return 'WARN';
  return 'ERROR';
}

/** A Temporal Logger writing to `log` (an `error` field is serialized like pino's `err`: message and stack). */
export function temporalPinoLogger(log: PinoLogger): TemporalLogger {
  const write = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    const fields = meta?.error instanceof Error ? { ...meta, error: pino.stdSerializers.err(meta.error) } : meta;
    log[PINO_LEVEL[level] ?? 'warn'](fields ?? {}, message);
  };
  return {
    log: write,
    trace: (message, meta) => write('TRACE', message, meta),
    debug: (message, meta) => write('DEBUG', message, meta),
    info: (message, meta) => write('INFO', message, meta),
    warn: (message, meta) => write('WARN', message, meta),
    error: (message, meta) => write('ERROR', message, meta),
  };
}
