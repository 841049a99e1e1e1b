export { loadConfig, parseEncryptionKey, ConfigError, type Config } from './config';
export { parseDuration } from './duration';
export { parseDatabaseUrl, withDatabase, type DatabaseUrl } from './database-url';
