import type { SMTPServerAuthentication } from 'smtp-server';
import { apiKeyMatches, connectionSource, hashApiKey, isWellFormedApiKey } from '@mailer/domain';
import type { SubmissionDependencies } from './container';
import { smtpReply, type SmtpReply } from './smtp-replies';

/** The one user name; the password is a sending key. */
export const SUBMISSION_USER = 'mailer';

/** What a session authenticated as. */
export interface SubmissionUser {
  accountId: string;
  keyId: string;
  /** Authenticated with the test key: its messages are simulated (docs/api-decisions.md, "Test mode"). */
  test: boolean;
}

/** The reply to an address throttled for its failed AUTHs, at connection and at AUTH. */
export function throttledReply(deps: SubmissionDependencies): SmtpReply {
  deps.metrics.throttled.inc();
  return smtpReply(421, '4.7.0', 'Too many failed authentications from your address, try again later');
}

/**
 * AUTH (docs/api-decisions.md, "SMTP submission"), reached only over TLS (smtp-server answers
 * 538 before STARTTLS without calling onAuth): `mailer` with a sending key (live or test),
 * looked up by hash and compared in constant time. Resolves with the user, or rejects with the
 * reply: `421 4.7.0` to a throttled address (also for the failure that comes after the bound,
 * counted atomically with the others), `535 5.7.8` for a wrong user or key, `454 4.7.0` when
 * the lookup fails.
 */
export async function authenticate(deps: SubmissionDependencies, auth: SMTPServerAuthentication, remoteAddress: string): Promise<SubmissionUser> {
  const address = connectionSource(remoteAddress);
  if ((await deps.throttle.check(address)).blocked) throw throttledReply(deps);
  const password = auth.password ?? '';
  if (auth.username === SUBMISSION_USER && isWellFormedApiKey(password)) {
    const key = await deps.keys.submit(hashApiKey(password)).catch((error: Error) => {
      deps.logger.error('key lookup failed', { error: error.message });
      throw smtpReply(454, '4.7.0', 'Temporary authentication failure');
    });
    if (key && key.kind === 'sending' && apiKeyMatches(password, key.keyHash)) return { accountId: key.accountId, keyId: key.id, test: key.test };
  }
  if ((await deps.throttle.recordFailure(address)).blocked) throw throttledReply(deps);
  deps.metrics.authFailures.inc();
  throw smtpReply(535, '5.7.8', 'Authentication credentials invalid');
}
