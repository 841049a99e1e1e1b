import { AppError, EMAIL_TYPES, generateApiKey, hashApiKey, newId, reputationThresholdsProblem, SCOPES, type PlanLimits, type ReputationThresholds, type Scope } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction } from '../transaction';

export const FREE_PLAN_ID = 'plan_free';

/**
 * A plan: its recipient limits, how many active domains, webhook endpoints and templates the
 * account may have, and its reputation thresholds (docs/api-decisions.md, "Reputation").
 */
export interface PlanSettings extends PlanLimits, ReputationThresholds {
  maxDomains: number;
  maxWebhookEndpoints: number;
  maxTemplates: number;
}

export interface ProvisionedAccount {
  account: { id: string; name: string; plan: string };
  sending_key: string;
  /** The test sending key (docs/api-decisions.md, "Test mode"). */
  test_sending_key: string;
  management_key: string;
}

/** A new key: its insert, for the caller to send (in its transaction, if any), and the key itself, shown once. */
function newKey(db: Queryable, accountId: string, kind: 'sending' | 'management', scopes: readonly Scope[], test = false) {
  const key = generateApiKey(kind, test);
  const id = newId('apiKey');
  const insert = db`
    insert into api_keys (id, account_id, kind, key_hash, test, scopes)
    values (${id}, ${accountId}, ${kind}, ${hashApiKey(key)}, ${test}, ${[...scopes]}::text[])`;
  return { id, key, insert };
}

/** A new account on the free plan with its live and test sending keys and an all-scope management key. */
export async function createAccount(db: Database, name: string): Promise<ProvisionedAccount> {
  return inTransaction(db, async (tx) => {
    const id = newId('account');
    const sending = newKey(tx.sql, id, 'sending', []);
    const testSending = newKey(tx.sql, id, 'sending', [], true);
    const management = newKey(tx.sql, id, 'management', SCOPES);
    await tx.commit(
      tx.sql`insert into accounts (id, name, plan_id) values (${id}, ${name}, ${FREE_PLAN_ID})`,
      // Created with the account: intake only locks and reads it.
      tx.sql`insert into account_usage (account_id) values (${id})`,
      tx.sql`insert into account_streams (account_id, stream) select ${id}, unnest(${[...EMAIL_TYPES]}::text[])`,
      sending.insert,
      testSending.insert,
      management.insert,
    );
    return { account: { id, name, plan: 'free' }, sending_key: sending.key, test_sending_key: testSending.key, management_key: management.key };
  });
}

export interface AccountListItem {
  id: string;
  name: string;
  /** The plan's name (`free`, `custom`) and id. */
  plan: string;
  planId: string;
  createdAt: Date;
}

/** Every account, oldest first, for the operator CLI. */
export async function listAccounts(db: Queryable): Promise<AccountListItem[]> {
  const rows = await db`
    select a.id, a.name, a.plan_id, p.name as plan_name, a.created_at
    from accounts a join plans p on p.id = a.plan_id
    order by a.created_at, a.id`;
  return rows.map((r) => ({ id: r.id, name: r.name, plan: r.plan_name, planId: r.plan_id, createdAt: r.created_at }));
}

/** A key as the operator CLI lists it: never the key or its hash. */
export interface KeyListItem {
  id: string;
  kind: 'sending' | 'management';
  test: boolean;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

/** The account's keys, revoked ones included, oldest first. */
export async function listAccountKeys(db: Queryable, accountId: string): Promise<KeyListItem[]> {
  const rows = await db`
    select id, kind, test, scopes, created_at, revoked_at from api_keys
    where account_id = ${accountId}
    order by created_at, id`;
  return rows.map((r) => ({ id: r.id, kind: r.kind, test: r.test, scopes: r.scopes, createdAt: r.created_at, revokedAt: r.revoked_at }));
}

/** What GET /v1/account shows of the account itself, beside its usage figures (usageFigures). */
export interface AccountProfile {
  id: string;
  name: string;
  createdAt: Date;
  maxDomains: number;
  maxWebhookEndpoints: number;
  maxTemplates: number;
}

/** The account's profile, to be sent with usageFigures in one transaction; read with accountProfileFrom. */
export function accountProfile(db: Queryable, accountId: string) {
  return db`
    select a.id, a.name, a.created_at, p.max_domains, p.max_webhook_endpoints, p.max_templates
    from accounts a join plans p on p.id = a.plan_id
    where a.id = ${accountId}`;
}

export function accountProfileFrom(rows: readonly Row[]): AccountProfile | undefined {
  const row = rows[0];
  return row && { id: row.id, name: row.name, createdAt: row.created_at, maxDomains: row.max_domains, maxWebhookEndpoints: row.max_webhook_endpoints, maxTemplates: row.max_templates };
}

export async function accountExists(db: Queryable, accountId: string): Promise<boolean> {
  const [row] = await db`select id from accounts where id = ${accountId} limit 1`;
  return Boolean(row);
}

export async function createManagementKey(db: Database, accountId: string, scopes: readonly Scope[]) {
  const { id, key, insert } = newKey(db, accountId, 'management', scopes);
  await insert;
  return { id, key, scopes: [...scopes] };
}

/** Returns false when no active key has that id. */
export async function revokeKey(db: Database, keyId: string, at = new Date()): Promise<boolean> {
  const revoked = await db`update api_keys set revoked_at = ${at} where id = ${keyId} and revoked_at is null returning id`;
  return revoked.length > 0;
}

/** Issues a new sending key (live, or test) and revokes the previous one of the same mode in the same transaction. */
export async function rotateSendingKey(db: Database, accountId: string, at = new Date(), test = false): Promise<string> {
  return inTransaction(db, async (tx) => {
    const sending = newKey(tx.sql, accountId, 'sending', [], test);
    // In this order: an account has one active sending key of each mode (api_keys_one_active_sending_key).
    await tx.commit(
      tx.sql`update api_keys set revoked_at = ${at} where account_id = ${accountId} and kind = 'sending' and test = ${test} and revoked_at is null`,
      sending.insert,
    );
    return sending.key;
  });
}

/**
 * Gives the account a custom plan: the given settings, the rest carried over from its current
 * plan. Thresholds that do not hold together (reputationThresholdsProblem) are a
 * `validation_error`, and nothing is written.
 */
export async function setAccountPlan(db: Database, accountId: string, limits: Partial<PlanSettings>) {
  return inTransaction(db, async (tx) => {
    const [[current]] = await tx.send(tx.sql`
      select p.per_minute, p.per_hour, p.per_day, p.per_30_days, p.max_active, p.max_domains, p.max_webhook_endpoints, p.max_templates,
             p.reputation_min_volume, p.review_bounce_rate, p.review_complaint_rate, p.pause_bounce_rate, p.pause_complaint_rate
      from accounts a join plans p on p.id = a.plan_id
      where a.id = ${accountId}
      for update of a`);
    if (!current) return undefined;
    const merged: PlanSettings = {
      perMinute: limits.perMinute ?? current.per_minute,
      perHour: limits.perHour ?? current.per_hour,
      perDay: limits.perDay ?? current.per_day,
      per30Days: limits.per30Days ?? current.per_30_days,
      maxActive: limits.maxActive ?? current.max_active,
      maxDomains: limits.maxDomains ?? current.max_domains,
      maxWebhookEndpoints: limits.maxWebhookEndpoints ?? current.max_webhook_endpoints,
      maxTemplates: limits.maxTemplates ?? current.max_templates,
      // Rates are numerics, which the driver hands over as strings.
      minVolume: limits.minVolume ?? current.reputation_min_volume,
      reviewBounceRate: limits.reviewBounceRate ?? Number(current.review_bounce_rate),
      reviewComplaintRate: limits.reviewComplaintRate ?? Number(current.review_complaint_rate),
      pauseBounceRate: limits.pauseBounceRate ?? Number(current.pause_bounce_rate),
      pauseComplaintRate: limits.pauseComplaintRate ?? Number(current.pause_complaint_rate),
    };
    const problem = reputationThresholdsProblem(merged);
    if (problem) throw new AppError('validation_error', `The plan's reputation thresholds do not hold together: ${problem}.`);
    const id = newId('plan');
    await tx.commit(
      tx.sql`
        insert into plans (id, name, per_minute, per_hour, per_day, per_30_days, max_active, max_domains, max_webhook_endpoints, max_templates,
                           reputation_min_volume, review_bounce_rate, review_complaint_rate, pause_bounce_rate, pause_complaint_rate)
        values (${id}, 'custom', ${merged.perMinute}, ${merged.perHour}, ${merged.perDay}, ${merged.per30Days}, ${merged.maxActive},
                ${merged.maxDomains}, ${merged.maxWebhookEndpoints}, ${merged.maxTemplates}, ${merged.minVolume}, ${merged.reviewBounceRate},
                ${merged.reviewComplaintRate}, ${merged.pauseBounceRate}, ${merged.pauseComplaintRate})`,
      tx.sql`update accounts set plan_id = ${id} where id = ${accountId}`,
    );
    return { id, name: 'custom', ...merged };
  });
}

/** One account with its plan's settings, for the operator console; undefined when there is none of that id. */
export async function findAccountWithPlan(db: Queryable, accountId: string): Promise<(AccountListItem & { limits: PlanSettings }) | undefined> {
  const [r] = await db`
    select a.id, a.name, a.plan_id, p.name as plan_name, a.created_at,
           p.per_minute, p.per_hour, p.per_day, p.per_30_days, p.max_active, p.max_domains, p.max_webhook_endpoints, p.max_templates,
           p.reputation_min_volume, p.review_bounce_rate, p.review_complaint_rate, p.pause_bounce_rate, p.pause_complaint_rate
    from accounts a join plans p on p.id = a.plan_id
    where a.id = ${accountId}`;
  if (!r) return undefined;
  return {
    id: r.id,
    name: r.name,
    plan: r.plan_name,
    planId: r.plan_id,
    createdAt: r.created_at,
    limits: {
      perMinute: r.per_minute,
      perHour: r.per_hour,
      perDay: r.per_day,
      per30Days: r.per_30_days,
      maxActive: r.max_active,
      maxDomains: r.max_domains,
      maxWebhookEndpoints: r.max_webhook_endpoints,
      maxTemplates: r.max_templates,
      // Rates are numerics, which the driver hands over as strings.
      minVolume: r.reputation_min_volume,
      reviewBounceRate: Number(r.review_bounce_rate),
      reviewComplaintRate: Number(r.review_complaint_rate),
      pauseBounceRate: Number(r.pause_bounce_rate),
      pauseComplaintRate: Number(r.pause_complaint_rate),
    },
  };
}

/**
 * Disables or enables an account (docs/api-decisions.md, "Queue operations"): while disabled its
 * keys are refused. Undefined when there is no such account; otherwise whether it changed (a
 * second disable keeps the first time) and when it was disabled (null once enabled).
 */
export async function setAccountDisabled(db: Queryable, accountId: string, disabled: boolean, at: Date): Promise<{ changed: boolean; disabledAt: Date | null } | undefined> {
  const [row] = await db`
    with before as (select id, disabled_at from accounts where id = ${accountId} for update)
    update accounts a
       set disabled_at = case when ${disabled} then coalesce(b.disabled_at, ${at}) else null end
      from before b
     where a.id = b.id
    returning a.disabled_at, (b.disabled_at is null) = ${disabled} as changed`;
  return row && { changed: row.changed, disabledAt: row.disabled_at };
}
