import { randomBytes } from 'node:crypto';
import { migrateDatabase } from '@mailer/db';
import { RUN_ENV, TEMPLATE_ENV, databaseUrl, withAdmin } from './test-database';

/** Migrates one template database per test run; each test file clones it. */
export default async function globalSetup(): Promise<void> {
  const run = randomBytes(3).toString('hex');
  const template = `mailer_test_${run}_template`;
  await migrateDatabase(databaseUrl(template));
  // Clones need the template free of sessions.
  await withAdmin((sql) => sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${template}`);
  process.env[RUN_ENV] = run;
  process.env[TEMPLATE_ENV] = template;
}
