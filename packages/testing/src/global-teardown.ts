import { RUN_ENV, withAdmin } from './test-database';

/** Drops every database this run created; runs of other processes are left alone. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env[RUN_ENV];
  if (!run) return;
  await withAdmin(async (sql) => {
    const rows = await sql`select datname from pg_database where datname like ${`mailer_test_${run}_%`}`;
    for (const { datname } of rows) await sql`drop database if exists ${sql(datname as string)} with (force)`;
  });
}
