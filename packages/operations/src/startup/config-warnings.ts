import type { Config } from '@mailer/config';
import type { Logger } from '@mailer/logger';

/** Logs, once at start, each setting that is allowed outside production but wrong for it (Config.warnings). */
export function logConfigWarnings(config: Config, logger: Logger): void {
  for (const warning of config.warnings) logger.warn(warning.message, { variable: warning.variable });
}
