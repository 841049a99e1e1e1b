import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';
import { withDotEnv } from './dot-env';

describe('.env of the working directory', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'mailer-dotenv-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('adds what the environment does not set; a real variable, even empty, wins', () => {
    writeFileSync(
      join(directory, '.env'),
      '# settings of this checkout\nDATABASE_URL=postgres://postgres@127.0.0.1:5432/from_file\nPORT="3100"\nLOG_LEVEL=debug\nSMTP_HELO_NAME=\n',
    );
    const env = withDotEnv({ LOG_LEVEL: 'warn', SMTP_HELO_NAME: '' }, directory);
    expect(env).toEqual({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/from_file', PORT: '3100', LOG_LEVEL: 'warn', SMTP_HELO_NAME: '' });
    const config = loadConfig(env);
    expect([config.databaseUrl, config.port, config.logLevel]).toEqual(['postgres://postgres@127.0.0.1:5432/from_file', 3100, 'warn']);
  });

  it('changes nothing without a file', () => {
    expect(withDotEnv({ PORT: '3000' }, directory)).toEqual({ PORT: '3000' });
  });
});
