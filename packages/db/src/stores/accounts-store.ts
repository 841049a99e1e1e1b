import { and, eq, isNull } from 'drizzle-orm';
import { generateApiKey, hashApiKey, newId, SCOPES, type PlanLimits, type Scope } from '@mailer/domain';
import type { Database, DbOrTx } from '../database';
import { accounts, plans } from '../schema/accounts';
import { apiKeys } from '../schema/api-keys';

export const FREE_PLAN_ID = 'plan_free';

export interface ProvisionedAccount {
  account: { id: string; name: string; plan: string };
  sending_key: string;
  management_key: string;
}

async function insertKey(tx: DbOrTx, accountId: string, kind: 'sending' | 'management', scopes: readonly Scope[]) {
  const key = generateApiKey(kind);
  const id = newId('apiKey');
  await tx.insert(apiKeys).values({ id, accountId, kind, keyHash: hashApiKey(key), scopes: [...scopes] });
  return { id, key };
}

/** A new account on the free plan with its sending key and an all-scope management key. */
export async function createAccount(db: Database, name: string): Promise<ProvisionedAccount> {
  return db.transaction(async (tx) => {
    const id = newId('account');
    await tx.insert(accounts).values({ id, name, planId: FREE_PLAN_ID });
    const sending = await insertKey(tx, id, 'sending', []);
    const management = await insertKey(tx, id, 'management', SCOPES);
    return { account: { id, name, plan: 'free' }, sending_key: sending.key, management_key: management.key };
  });
}

export async function accountExists(db: DbOrTx, accountId: string): Promise<boolean> {
  const [row] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return Boolean(row);
}

export async function createManagementKey(db: Database, accountId: string, scopes: readonly Scope[]) {
  const { id, key } = await insertKey(db, accountId, 'management', scopes);
  return { id, key, scopes: [...scopes] };
}

/** Returns false when no active key has that id. */
export async function revokeKey(db: Database, keyId: string, at = new Date()): Promise<boolean> {
  const revoked = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return revoked.length > 0;
}

/** Issues a new sending key and revokes the previous one in the same transaction. */
export async function rotateSendingKey(db: Database, accountId: string, at = new Date()): Promise<string> {
  return db.transaction(async (tx) => {
    await tx
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.kind, 'sending'), isNull(apiKeys.revokedAt)));
    return (await insertKey(tx, accountId, 'sending', [])).key;
  });
}

/** Gives the account a custom plan: the given limits, the rest carried over from its current plan. */
export async function setAccountPlan(db: Database, accountId: string, limits: Partial<PlanLimits>) {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select({ plan: plans })
      .from(accounts)
      .innerJoin(plans, eq(plans.id, accounts.planId))
      .where(eq(accounts.id, accountId))
      .for('update', { of: accounts });
    if (!current) return undefined;
    const merged: PlanLimits = {
      perMinute: limits.perMinute ?? current.plan.perMinute,
      perHour: limits.perHour ?? current.plan.perHour,
      perDay: limits.perDay ?? current.plan.perDay,
      per30Days: limits.per30Days ?? current.plan.per30Days,
      maxActive: limits.maxActive ?? current.plan.maxActive,
    };
    const id = newId('plan');
    await tx.insert(plans).values({ id, name: 'custom', ...merged });
    await tx.update(accounts).set({ planId: id }).where(eq(accounts.id, accountId));
    return { id, name: 'custom', ...merged };
  });
}
