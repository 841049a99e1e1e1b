export { loadConfig, parseEncryptionKey, ConfigError, databaseUrlProblem, describeStartupFailure, type Config } from './config';
export { withDotEnv } from './dot-env';
export { parseDuration } from './duration';
export { parseDatabaseUrl, withDatabase, type DatabaseUrl } from './database-url';
export { DEVELOPMENT_HELO_NAME, isPlaceholderHostName } from './helo-name';
