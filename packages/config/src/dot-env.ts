import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/** The optional settings file every role and the CLI read from their working directory. */
export const DOT_ENV_FILE = '.env';

/**
 * Adds the variables of `.env` in `directory` to `env` (docs/api-decisions.md, "First run"):
 * a variable `env` already holds, even empty, wins over the file's, so a real environment
 * variable always overrides it. No file, nothing added. Returns `env`. The file is written in
 * `.env.example`'s syntax (`NAME=value`, `#` comments, optional quotes), as Node's `--env-file`.
 */
export function withDotEnv(env: NodeJS.ProcessEnv, directory: string): NodeJS.ProcessEnv {
  const file = join(directory, DOT_ENV_FILE);
  if (!existsSync(file)) return env;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(file, 'utf8')))) {
    if (!(name in env)) env[name] = value;
  }
  return env;
}
