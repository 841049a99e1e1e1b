import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The cluster the tests run against; override with TEST_DATABASE_ADMIN_URL. */
export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEMPLATE_ENV = 'MAILER_TEST_TEMPLATE_DB';
export const RUN_ENV = 'MAILER_TEST_RUN';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

/**
 * A fresh database for one test file, cloned from the migrated template that the global
 * setup built for this run: a test never shares tables with another file.
 */
export async function createTestDatabase(): Promise<string> {
  const template = process.env[TEMPLATE_ENV];
  const run = process.env[RUN_ENV];
  if (!template || !run) throw new Error('the jest global setup has not prepared a template database');
  const name = `mailer_test_${run}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (sql) => {
    // CREATE DATABASE ... TEMPLATE fails while another session is copying the same template.
    for (let attempt = 0; ; attempt++) {
      try {
        await sql`create database ${sql(name)} template ${sql(template)}`;
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt > 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
  return databaseUrl(name);
}

/** A Redis key prefix of its own for one test file. */
export function testRedisPrefix(): string {
  return `mailer_test_${process.env[RUN_ENV] ?? 'x'}_${randomBytes(4).toString('hex')}`;
}
