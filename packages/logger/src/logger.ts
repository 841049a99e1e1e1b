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
      redact(),
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [transport],
  });
  return logger;
}
