export { loadConfig, ConfigError, type Config } from './config';
export { parseDuration } from './duration';
