import path from 'node:path';
import postgres from 'postgres';
import { parseDatabaseUrl, withDatabase } from '@mailer/config';
import { primaryOnly } from './database';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';

export const MIGRATIONS_FOLDER = path.resolve(__dirname, '..', 'migrations');

const connect = (url: string) => postgres(url, { max: 1, onnotice: () => undefined, ...primaryOnly(url) });

/** Creates the database named in `url` when it does not exist yet (docs/api-decisions.md, "Operations"). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = parseDatabaseUrl(url);
  if ('error' in target) throw new Error(`DATABASE_URL ${target.error}`);
  if (!target.database) throw new Error('DATABASE_URL names no database');
  const name = target.database;
  const sql = connect(withDatabase(url, 'postgres'));
  try {
    const existing = await sql`select 1 from pg_database where datname = ${name}`;
    if (existing.length === 0) {
      await sql`create database ${sql(name)}`.catch((error: { code?: string }) => {
        // Another process created it between our check and our create.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await sql.end();
  }
}

/** Applies the committed SQL migrations; safe to run from several processes at once. */
export async function migrateDatabase(url: string): Promise<void> {
  await ensureDatabase(url);
  const sql = connect(url);
  try {
    // drizzle's migrator is not safe against concurrent runs; serialize them cluster-wide.
    await sql`select pg_advisory_lock(7283910)`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await sql`select pg_advisory_unlock(7283910)`.catch(() => undefined);
    await sql.end();
  }
}
