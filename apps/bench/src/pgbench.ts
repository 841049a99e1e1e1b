import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';

const PGBENCH = '/usr/bin/pgbench';

export interface CeilingOptions {
  databaseUrl: string;
  clients: number;
  seconds: number;
}

/**
 * The raw PostgreSQL ceiling on this machine: one ~2 KB row inserted per transaction,
 * committed synchronously, by `clients` concurrent pgbench clients. The payload column
 * is stored PLAIN (neither compressed nor moved to TOAST) so every row really writes 2 KB.
 */
export async function measureInsertCeiling(options: CeilingOptions): Promise<number> {
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => undefined });
  try {
    await sql`drop table if exists bench_rows`;
    await sql`create table bench_rows (id bigserial primary key, payload text not null, created_at timestamptz not null default now())`;
    await sql`alter table bench_rows alter column payload set storage plain`;
  } finally {
    await sql.end();
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'mailer-pgbench-'));
  const script = path.join(dir, 'insert.sql');
  await writeFile(script, "BEGIN;\nINSERT INTO bench_rows (payload) VALUES (repeat('x', 2048));\nEND;\n");
  const url = new URL(options.databaseUrl);
  const args = [
    '-n',
    '-f', script,
    '-c', String(options.clients),
    '-j', '2',
    '-T', String(options.seconds),
    '-h', url.hostname,
    '-p', url.port || '5432',
    '-U', decodeURIComponent(url.username || 'postgres'),
    decodeURIComponent(url.pathname.slice(1)),
  ];
  const output = await new Promise<string>((resolve, reject) =>
    execFile(PGBENCH, args, { env: { PATH: process.env.PATH, PGPASSWORD: decodeURIComponent(url.password) } }, (error, stdout, stderr) =>
      error ? reject(new Error(`pgbench failed: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1];
  if (!tps) throw new Error(`pgbench printed no tps:\n${output}`);
  return Number(tps);
}
