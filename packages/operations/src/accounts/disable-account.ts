import { AppError, isIdOf } from '@mailer/domain';
import { setAccountDisabled, type Database } from '@mailer/db';
import { iso } from '../timestamp';

/**
 * `account disable|enable` (docs/api-decisions.md, "Queue operations"): a disabled account's
 * keys answer 401 `unauthorized` as unknown keys do, from the next request on (key lookups read
 * the database each time); its mail already accepted keeps being delivered. Repeating either is
 * a no-op (`changed: false`).
 */
export async function setAccountEnabled(db: Database, accountId: string, enabled: boolean, now: Date) {
  const result = isIdOf('account', accountId) ? await setAccountDisabled(db, accountId, !enabled, now) : undefined;
  if (!result) throw new AppError('account_not_found', `No account with id ${accountId}.`);
  return { id: accountId, status: enabled ? 'enabled' : 'disabled', disabled_at: iso(result.disabledAt), changed: result.changed };
}
