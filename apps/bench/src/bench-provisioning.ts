import path from 'node:path';
import { createAccount, migrateDatabase, openDatabase, setAccountPlan } from '@mailer/db';
import { insertReadyDomain, insertSender, type TestDnsServer } from '@mailer/testing';

/**
 * A build's own code for setting up a benchmark's database: its migrations, and the stores and
 * test factories that provision the sending account. Another checkout's database is migrated
 * and filled by that checkout's code, never by this one's (its schema may differ).
 */
export interface BuildProvisioning {
  migrateDatabase(url: string): Promise<unknown>;
  openDatabase: (url: string, poolSize: number) => { db: unknown; close(): Promise<void> };
  createAccount(db: unknown, name: string): Promise<{ account: { id: string }; sending_key: string }>;
  setAccountPlan(db: unknown, accountId: string, limits: object): Promise<unknown>;
  insertReadyDomain(db: unknown, encryptionKey: Buffer, accountId: string, name: string): Promise<{ id: string; dkim: { selector: string; publicKey: string } }>;
  insertSender(db: unknown, accountId: string, domainId: string, email: string, options: { displayName?: string }): Promise<unknown>;
}

export const THIS_BUILD: BuildProvisioning = {
  migrateDatabase,
  openDatabase,
  createAccount,
  setAccountPlan,
  insertReadyDomain,
  insertSender,
} as unknown as BuildProvisioning;

/** The provisioning code of another built checkout (its workspace packages, as built there). */
export function provisioningOf(checkout: string): BuildProvisioning {
  const load = (name: string) => require(path.join(checkout, 'node_modules/@mailer', name)) as Record<string, unknown>;
  const db = load('db');
  const testing = load('testing');
  const provisioning = {
    migrateDatabase: db.migrateDatabase,
    openDatabase: db.openDatabase,
    createAccount: db.createAccount,
    setAccountPlan: db.setAccountPlan,
    insertReadyDomain: testing.insertReadyDomain,
    insertSender: testing.insertSender,
  };
  const missing = Object.entries(provisioning).filter(([, f]) => typeof f !== 'function');
  if (missing.length > 0) throw new Error(`${checkout} has no ${missing.map(([name]) => name).join(', ')} in its built packages`);
  return provisioning as unknown as BuildProvisioning;
}

/** No plan limit a benchmark could reach. */
const UNLIMITED_PLAN = { perMinute: 1e9, perHour: 1e9, perDay: 1e9, per30Days: 2e9, maxActive: 2e9 };
const BODY_BYTES = 4_096;
export const BENCH_BODY_KB = BODY_BYTES / 1024;

export interface BenchSenderOptions {
  /** The sending domain (`bench.test` unless given). */
  domain?: string;
  /** Where its DKIM key is published, for runs that deliver. */
  dns?: TestDnsServer;
}

/**
 * An account without limits, with its domain ready and the sender orders@<domain>; returns the
 * account and its sending key.
 */
export async function provisionBenchSender(
  build: BuildProvisioning,
  db: unknown,
  encryptionKey: Buffer,
  { domain: name = 'bench.test', dns }: BenchSenderOptions = {},
): Promise<{ accountId: string; sendingKey: string }> {
  const provisioned = await build.createAccount(db, 'Benchmark');
  await build.setAccountPlan(db, provisioned.account.id, UNLIMITED_PLAN);
  const domain = await build.insertReadyDomain(db, encryptionKey, provisioned.account.id, name);
  dns?.set(`${domain.dkim.selector}._domainkey.${name}`, [{ type: 'TXT', data: `v=DKIM1; k=rsa; p=${domain.dkim.publicKey}` }]);
  await build.insertSender(db, provisioned.account.id, domain.id, `orders@${name}`, { displayName: 'Bench Shop' });
  return { accountId: provisioned.account.id, sendingKey: provisioned.sending_key };
}

/** The benchmarks' message from orders@bench.test: a 4 KB plain-text order notice to `to`. */
export function benchMessage(to: string[]): string {
  const line = 'Thank you for your order. Your parcel is on its way and should arrive within two days.\n';
  const plain = line.repeat(Math.ceil(BODY_BYTES / line.length)).slice(0, BODY_BYTES);
  return JSON.stringify({ from: 'orders@bench.test', to, subject: 'Your order has shipped', content: { plain } });
}
