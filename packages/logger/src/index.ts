export { createLogger, LOG_KEY, snakeCaseKey, type Logger, type LoggerOptions } from './logger';
export { runService, type FailureFields } from './fatal';
