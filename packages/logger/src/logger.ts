import winston from 'winston';

export type Logger = winston.Logger;

/**
 * Field names whose values never reach a log line: credentials, message content and
 * BCC addresses. Callers should not pass them at all; this is the safety net.
 */
const REDACTED_FIELDS = new Set([
  'authorization', 'key', 'apikey', 'api_key', 'sending_key', 'management_key', 'token', 'password',
  'bcc', 'bcc_recipients', 'content', 'plain', 'html', 'text', 'content_base64', 'attachments', 'raw', 'mime',
  'privatekey', 'private_key',
]);

/** The one key style of log lines (docs/guide.md, "Logs (operators)"): lower snake_case. */
export const LOG_KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** `requestId` → `request_id`, `durationMs` → `duration_ms`, `TLSVersion` → `tls_version`, `x-request-id` → `x_request_id`. */
export function snakeCaseKey(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/**
 * The value with every key of its plain objects (nested ones and those in arrays included) in
 * LOG_KEY style; an object that says how it is written (`toJSON`) is left to say so.
 */
function snakeCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.some((v) => isPlainObject(v) || Array.isArray(v)) ? value.map(snakeCased) : value;
  if (!isPlainObject(value) || typeof value.toJSON === 'function') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[LOG_KEY.test(key) ? key : snakeCaseKey(key)] = snakeCased(v);
  return out;
}

/**
 * Every field of every line in one key style, whatever a caller passed: a name in another
 * style is renamed (before the redaction below, which then knows `apiKey` as `api_key`).
 */
const snakeCaseFields = winston.format((info) => {
  for (const key of Object.keys(info)) {
    const value = info[key];
    const renamed = LOG_KEY.test(key) ? key : snakeCaseKey(key);
    if (renamed !== key) delete info[key];
    info[renamed] = snakeCased(value);
  }
  return info;
});

const redact = winston.format((info) => {
  for (const field of Object.keys(info)) {
    if (REDACTED_FIELDS.has(field.toLowerCase())) info[field] = '[redacted]';
  }
  return info;
});

export interface LoggerOptions {
  level: string;
  service: string;
  /** Where lines go; tests pass a stream to read what would have been logged. */
  stream?: NodeJS.WritableStream;
}

export function createLogger({ level, service, stream }: LoggerOptions): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console({ stderrLevels: ['error'] });
  const logger: Logger = winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      // winston checks levels only in its transports, after the whole chain below has
      // formatted the line: a level that is off stops here, for the cost of the check.
      winston.format((info) => logger.isLevelEnabled(info.level) && info)(),
      snakeCaseFields(),
      redact(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [transport],
  });
  return logger;
}
