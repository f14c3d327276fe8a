import { type Level, type Logger, pino } from 'pino';

export const LOG_LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The service's JSON log: one object per line with an ISO `time`, a `level` name and an
 * `event`. Written synchronously to `sink` (stdout, or a test buffer), so lines are never
 * lost on exit nor interleaved with other output. Secret-looking keys are redacted as a
 * second line of defence; what is logged is chosen field by field in the first place.
 */
export function createLogger(sink: { write(chunk: string): unknown }, level: Level | 'silent' = 'info'): Logger {
  return pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['token', 'password', 'secret', 'authorization', '*.token', '*.password', '*.secret', '*.authorization'], censor: '[redacted]' },
    },
    { write: (chunk: string) => sink.write(chunk) },
  );
}
