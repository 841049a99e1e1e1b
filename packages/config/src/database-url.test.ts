import { parseDatabaseUrl, withDatabase } from './database-url';

describe('DATABASE_URL with several hosts', () => {
  it('reads each host of a primary and its standbys, in order', () => {
    expect(parseDatabaseUrl('postgres://mailer:secret@db1:5433,db2,[::1]:6000/mail%20er?sslmode=require')).toEqual({
      hosts: [
        { host: 'db1', port: 5433 },
        { host: 'db2', port: 5432 },
        { host: '[::1]', port: 6000 },
      ],
      database: 'mail er',
    });
  });

  it('says what is wrong with a host list or a URL', () => {
    expect(parseDatabaseUrl('mysql://db1/mailer')).toEqual({ error: expect.stringContaining('postgres://') });
    expect(parseDatabaseUrl('postgres://db1,,db2/mailer')).toEqual({ error: '"" is not host or host:port' });
    expect(parseDatabaseUrl('postgres://db1:99999/mailer')).toEqual({ error: '"db1:99999" is not host or host:port' });
  });

  it('names another database on the same hosts, keeping credentials and parameters', () => {
    expect(withDatabase('postgres://u:p@db1:5433,db2:5433/mailer?sslmode=require', 'postgres')).toBe(
      'postgres://u:p@db1:5433,db2:5433/postgres?sslmode=require',
    );
  });
});
