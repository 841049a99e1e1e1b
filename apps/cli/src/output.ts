/** Where a command writes: process.stdout / process.stderr in production, buffers in tests. */
export interface CliOutput {
  write(text: string): unknown;
}

/**
 * An expected failure of a command (unknown account, bad option value): printed as
 * `{"error":{"code","message"}}` with --json, as a message otherwise; exit status 1.
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** With --json exactly `value` on one line (the machine-readable contract); otherwise the text for people. */
export function printResult(out: CliOutput, json: boolean | undefined, value: unknown, text: string): void {
  out.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

export function printError(err: CliOutput, json: boolean, error: { code: string; message: string }): void {
  err.write(json ? `${JSON.stringify({ error: { code: error.code, message: error.message } })}\n` : `error: ${error.message}\n`);
}
