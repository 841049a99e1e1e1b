import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from './database';
import { inlineStatement, queryInOneRoundTrip, sqlLiteral, withConnection } from './one-round-trip';

describe('sqlLiteral', () => {
  it('quotes text, doubling quotes, and uses the E form only when backslashes need it', () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\\b')).toBe(" E'a\\\\b'");
    expect(sqlLiteral(null)).toBe('null');
    expect(sqlLiteral(undefined)).toBe('null');
    expect(sqlLiteral(42)).toBe("'42'");
    expect(sqlLiteral(true)).toBe('true');
    expect(sqlLiteral(new Date('2026-01-02T03:04:05.678Z'))).toBe("'2026-01-02T03:04:05.678Z'");
  });

  it('makes an array an array constructor of literals', () => {
    expect(sqlLiteral(["it's", null, 'a\\b'])).toBe("ARRAY['it''s', null,  E'a\\\\b']");
    expect(sqlLiteral([])).toBe("'{}'");
  });

  it('refuses what it cannot inline faithfully', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(TypeError);
    expect(() => sqlLiteral({ a: 1 })).toThrow(TypeError);
    expect(() => sqlLiteral(Buffer.from('x'))).toThrow(TypeError);
  });
});

// The maintenance database, as @mailer/testing reaches it (which this package cannot import); only temporary tables are made.
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

describe('queryInOneRoundTrip (real PostgreSQL)', () => {
  let database: DatabaseHandle;

  beforeAll(() => {
    database = openDatabase(ADMIN_URL, 1);
  });
  afterAll(() => database.close());

  it('gives back every hostile text exactly, never as SQL', async () => {
    const hostile = ["'; drop table emails; --", 'back\\slash \\\' quote', '$1 $2 placeholder-like', "E'x'", 'ünïcødé ✉️\nnew line\ttab', ''];
    const [result] = await withConnection(database.pool, (client) =>
      queryInOneRoundTrip(client, [sql`select ${hostile[0]}::text as a, ${hostile[1]}::text as b, ${hostile[2]}::text as c,
        ${hostile[3]}::text as d, ${hostile[4]}::text as e, ${hostile[5]}::text as f`]),
    );
    expect(Object.values(result!.rows[0] as Record<string, string>)).toEqual(hostile);
  });

  it('gives back every hostile text of an array parameter exactly, in place', async () => {
    const hostile = ["'; drop table emails; --", 'back\\slash \\\' quote', null, '{"a","b"}', 'ünïcødé ✉️\nnew line', ''];
    const probe = (values: (string | null)[]) => sql`select ${sql.param(values)}::text[] as a`;
    const [prepared, again, empty] = await withConnection(database.pool, (client) => queryInOneRoundTrip(client, [probe(hostile), probe(['x']), probe([])]));
    expect(prepared!.rows[0]).toEqual({ a: hostile });
    expect(again!.rows[0]).toEqual({ a: ['x'] });
    expect(empty!.rows[0]).toEqual({ a: [] });
    expect(inlineStatement(probe(['x', null]))).toBe("select ARRAY['x', null]::text[] as a");
  });

  it('runs the statements in order and returns one result each', async () => {
    const results = await withConnection(database.pool, (client) =>
      queryInOneRoundTrip(client, ['begin', sql`select ${1}::int as n`, sql`select ${'two'}::text as n`, 'commit']),
    );
    expect(results.map((r) => r.rows)).toEqual([[], [{ n: 1 }], [{ n: 'two' }], []]);
  });

  it('rolls back what a failing statement left open, and the connection stays usable', async () => {
    // One pooled connection: the session's temporary table is seen by every call below.
    await database.pool.query('create temporary table round_trip_probe (v text)');
    await expect(
      withConnection(database.pool, (client) =>
        queryInOneRoundTrip(client, ['begin', sql`insert into round_trip_probe values (${'kept?'})`, 'select 1/0', 'commit']),
      ),
    ).rejects.toThrow(/division by zero/);
    expect((await database.pool.query('select count(*)::int as n from round_trip_probe')).rows[0]).toEqual({ n: 0 });
  });

  it('prepares a statement text once per connection and executes it with each call\'s values', async () => {
    const probe = (n: number) => sql`select ${n}::int * 2 as doubled`;
    const results = await withConnection(database.pool, async (client) => [
      ...(await queryInOneRoundTrip(client, [probe(1), probe(2)])),
      ...(await queryInOneRoundTrip(client, [probe(3)])),
    ]);
    expect(results.map((r) => r.rows[0])).toEqual([{ doubled: 2 }, { doubled: 4 }, { doubled: 6 }]);
    const prepared = await database.pool.query(`select count(*)::int as n from pg_prepared_statements where statement like '%$1::int * 2 as doubled'`);
    expect(prepared.rows[0]).toEqual({ n: 1 });
  });

  it('keeps a statement prepared inside a rolled-back transaction usable', async () => {
    const probe = (n: number) => sql`select ${n}::int + 100 as shifted`;
    await expect(
      withConnection(database.pool, (client) => queryInOneRoundTrip(client, ['begin', probe(1), 'select 1/0', 'commit'])),
    ).rejects.toThrow(/division by zero/);
    const [result] = await withConnection(database.pool, (client) => queryInOneRoundTrip(client, [probe(2)]));
    expect(result!.rows).toEqual([{ shifted: 102 }]);
  });

  it('renders a statement with its parameters in place', () => {
    expect(inlineStatement(sql`select ${'a'} || ${"b'"}`)).toBe("select 'a' || 'b'''");
  });
});
