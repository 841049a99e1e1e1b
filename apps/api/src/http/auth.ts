import {
  AppError,
  apiKeyMatches,
  grantsScope,
  hashApiKey,
  isOperatorAuthorized,
  isWellFormedApiKey,
  OPERATOR_TOKEN_NOT_CONFIGURED_MESSAGE,
  type KeyKind,
  type Scope,
} from '@mailer/domain';
import type { KeyLookup } from '@mailer/operations';

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  kind: KeyKind;
  /** The account's test sending key: its messages are simulated (docs/api-decisions.md, "Test mode"). */
  test: boolean;
  scopes: string[];
}

/** What a route requires of its caller (docs/api-decisions.md, "Keys and accounts"). */
export type RouteAuth =
  | { kind: 'none' }
  | { kind: 'operator' }
  | { kind: 'sending' }
  | { kind: 'management'; scope: Scope }
  /** Any key of the account: its sending key or a management key of any scope. */
  | { kind: 'account' };

const unauthorized = (message: string) =>
  new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer realm="mailer"' } });

/** The key presented (undefined: none, as the route's dialect reads it; Authorization: Bearer on /v1). */
export async function authenticate(keys: KeyLookup, presented: string | undefined): Promise<AuthenticatedKey> {
  if (presented === undefined) throw unauthorized('An Authorization: Bearer <key> header is required.');
  if (!isWellFormedApiKey(presented)) throw unauthorized('The API key is not valid.');
  const row = await keys.submit(hashApiKey(presented));
  if (!row || !apiKeyMatches(presented, row.keyHash)) throw unauthorized('The API key is not valid.');
  return { keyId: row.id, accountId: row.accountId, kind: row.kind, test: row.test, scopes: row.scopes };
}

/** Without OPERATOR_TOKEN the operator surface is off, and says so (docs/api-decisions.md, "Operations"). */
export const operatorTokenNotConfigured = () => new AppError('operator_token_not_configured', OPERATOR_TOKEN_NOT_CONFIGURED_MESSAGE);

/** The operator surface (metrics, dashboard) takes OPERATOR_TOKEN, not an account's key. */
export function authenticateOperator(header: string | undefined, token: string | undefined): void {
  if (!token) throw operatorTokenNotConfigured();
  if (!isOperatorAuthorized(header, token)) throw unauthorized('The operator token is required.');
}

/** Key type, then scope: the order every route checks them in (docs/api-decisions.md, "Errors"). */
export function authorize(key: AuthenticatedKey, auth: RouteAuth): void {
  if (auth.kind === 'none' || auth.kind === 'operator' || auth.kind === 'account') return;
  if (auth.kind === 'sending') {
    if (key.kind !== 'sending') throw new AppError('wrong_key_type', 'This route requires one of the account\'s sending keys (svc_live_… or svc_test_…).');
    return;
  }
  if (key.kind !== 'management') throw new AppError('wrong_key_type', 'This route requires a management key (mgmt_live_…).');
  if (!grantsScope(key.scopes, auth.scope)) {
    throw new AppError('insufficient_scope', `This key lacks the scope ${auth.scope}.`, {
      details: [{ path: 'scope', message: `requires ${auth.scope}` }],
    });
  }
}
