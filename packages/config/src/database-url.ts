/**
 * DATABASE_URL may name several hosts, `postgres://user@db1:5432,db2:5432/mailer`, as libpq
 * and postgres.js accept: a primary and its standbys, tried in order, the service insisting
 * on the one that accepts writes (docs/api-decisions.md, "Running several machines"). The
 * WHATWG URL parser rejects such an authority, so the host list is split off here and the
 * rest parsed as one URL.
 */
export interface DatabaseUrl {
  hosts: { host: string; port: number }[];
  database: string;
}

const SHAPE = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/;
const PLACEHOLDER = 'database-host.invalid';

/** The URL's hosts and database, or a message saying what is wrong with it. */
export function parseDatabaseUrl(text: string): DatabaseUrl | { error: string } {
  const parts = SHAPE.exec(text);
  if (!parts) return { error: 'expected postgres://[user@]host[:port][,host[:port]...]/database' };
  const [, scheme, userinfo = '', hostList, rest] = parts;
  const hosts: DatabaseUrl['hosts'] = [];
  for (const entry of hostList!.split(',')) {
    const host = HOST.exec(entry);
    const port = Number(host?.[2] ?? 5432);
    if (!host || port < 1 || port > 65535) return { error: `"${entry}" is not host or host:port` };
    hosts.push({ host: host[1]!, port });
  }
  let url: URL;
  try {
    url = new URL(`${scheme}${userinfo}${PLACEHOLDER}${rest}`);
  } catch {
    return { error: 'is not a URL' };
  }
  return { hosts, database: decodeURIComponent(url.pathname.replace(/^\//, '')) };
}

/** The same URL naming another database on the same hosts. */
export function withDatabase(text: string, database: string): string {
  const parts = SHAPE.exec(text);
  if (!parts) throw new Error('DATABASE_URL is not a postgres:// URL');
  const [, scheme, userinfo = '', hostList, rest] = parts;
  const url = new URL(`${scheme}${userinfo}${PLACEHOLDER}${rest}`);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString().replace(PLACEHOLDER, hostList!);
}
