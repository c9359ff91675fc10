import pino, { DestinationStream, Logger } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Where a credential could end up in a log line. The request serializer already
 * logs an allow-list of fields and never bodies; these paths are the second
 * line of defence for anything logged by hand (`log.info({ req }, ...)`).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'authorization',
  'rawKey',
  'raw_key',
  'token',
  '*.rawKey',
  '*.raw_key',
  '*.token',
  // A failed query carries its parameters; key digests are not secrets, but nothing is gained by logging them.
  'err.parameters',
  'err.driverError.parameters',
];

const STDOUT_BUFFER_BYTES = 16 * 2 ** 20;

/**
 * JSON lines on stdout (or the given stream, which is how tests capture them).
 * Stdout is written asynchronously: a synchronous write per line made logging
 * the largest cost of a request at info. Lines still go out at once when the
 * service is quiet, and pino writes what is pending when the process exits.
 * Behind a reader that stops reading, at most STDOUT_BUFFER_BYTES wait; lines
 * past that are dropped rather than held until memory runs out.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'keygate' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
  };
  return pino(options, destination ?? pino.destination({ dest: process.stdout.fd, sync: false, maxLength: STDOUT_BUFFER_BYTES }));
}
