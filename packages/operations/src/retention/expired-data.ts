// The retention purge: what the service no longer owes anyone, deleted once past retention.
export { purgeExpired, type RetentionResult } from '@mailer/db';
