import { RUN_ENV, withAdmin } from './test-database';

/** Drops every database this run created; runs of other processes are left alone. */
export default async function globalTeardown(): Promise<void> {
  const run = process.env[RUN_ENV];
  if (!run) return;
  await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`mailer_test_${run}_%`]);
    for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
  });
}
