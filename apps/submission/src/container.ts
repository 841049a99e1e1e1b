import type { Config } from '@mailer/config';
import { createLogger, type Logger } from '@mailer/logger';
import { closeIntakeServices, openIntakeServices, type IntakeServices } from '@mailer/operations';
import { AuthThrottle } from './auth-throttle';
import { createSubmissionMetrics, type SubmissionMetrics } from './metrics';

/** What the submission listener works with, built once at boot (and by tests, against real services). */
export interface SubmissionDependencies extends IntakeServices {
  config: Config;
  logger: Logger;
  throttle: AuthThrottle;
  metrics: SubmissionMetrics;
  now: () => Date;
}

export interface ContainerOverrides {
  logger?: Logger;
  now?: () => Date;
}

export function createContainer(config: Config, overrides: ContainerOverrides = {}): SubmissionDependencies {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, service: 'submission' });
  const now = overrides.now ?? (() => new Date());
  // A message takes one connection for its transaction; sessions wait for their turn rather than open more.
  const services = openIntakeServices(config, logger, now, Math.min(config.databasePoolSize, 10));
  return { config, logger, ...services, throttle: new AuthThrottle(now), metrics: createSubmissionMetrics(), now };
}

export const closeContainer = (deps: SubmissionDependencies): Promise<void> => closeIntakeServices(deps);
