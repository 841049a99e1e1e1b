import type { Config } from '@mailer/config';
import { createLogger, type Logger } from '@mailer/logger';
import { BodyBudget, closeIntakeServices, createConnectionLimit, openIntakeServices, type ConnectionLimit, type IntakeServices } from '@mailer/operations';
import { AuthThrottle } from '@mailer/queue';
import { createSubmissionMetrics, type SubmissionMetrics } from './metrics';

/** What the submission listener works with, built once at boot (and by tests, against real services). */
export interface SubmissionDependencies extends IntakeServices {
  config: Config;
  logger: Logger;
  /** Failed AUTHs per address, shared through Redis with every listener process. */
  throttle: AuthThrottle;
  /** Open sessions per address and in all, over both ports (SUBMISSION_MAX_CONNECTIONS…). */
  connections: ConnectionLimit;
  /** Message data held at once, per account and in all (MAX_BODY_BYTES_IN_FLIGHT, MAX_BODY_BYTES_PER_ACCOUNT). */
  bodyBudget: BodyBudget;
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
  const throttle = new AuthThrottle(services.redis, config.redisPrefix, 'submission', (error) => logger.warn('auth throttle counts in this process: Redis is unreachable', { error: error.message }), now);
  return {
    config,
    logger,
    ...services,
    throttle,
    connections: createConnectionLimit(config.submission.connections),
    bodyBudget: new BodyBudget(config.bodyBudget),
    metrics: createSubmissionMetrics(),
    now,
  };
}

export const closeContainer = (deps: SubmissionDependencies): Promise<void> => closeIntakeServices(deps);
