import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { Client } from 'pg';

export const MIGRATIONS_FOLDER = path.resolve(__dirname, '..', 'migrations');

/** Creates the database named in `url` when it does not exist yet (CONTRACT.md section 8). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      await client.query(`create database "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        // Another process created it between our check and our create.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/** Applies the committed SQL migrations; safe to run from several processes at once. */
export async function migrateDatabase(url: string): Promise<void> {
  await ensureDatabase(url);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // drizzle's migrator is not safe against concurrent runs; serialize them cluster-wide.
    await client.query('select pg_advisory_lock(7283910)');
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.query('select pg_advisory_unlock(7283910)').catch(() => undefined);
    await client.end();
  }
}
