export { loadConfig, parseEncryptionKey, ConfigError, describeStartupFailure, type Config } from './config';
export { parseDuration } from './duration';
export { parseDatabaseUrl, withDatabase, type DatabaseUrl } from './database-url';
