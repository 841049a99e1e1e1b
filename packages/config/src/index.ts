export { loadConfig, parseEncryptionKey, ConfigError, type Config } from './config';
export { parseDuration } from './duration';
