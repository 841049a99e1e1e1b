import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The reference MTA benchmark shipped with the task (see its README). */
export const POSTFIX_RELAY_SCRIPT = process.env.POSTFIX_RELAY_SCRIPT ?? '/work/shared/bench/postfix_relay.sh';

export interface PostfixFigures {
  /** End-to-end msg/s, 1 recipient per message, median over the script's runs. */
  singleE2e?: number;
  singleAccept?: number;
  /** End-to-end recipient deliveries/s, 20 recipients in 20 domains. */
  multiDeliveries?: number;
  /** Every RESULT line, as printed. */
  results: string[];
}

/**
 * Runs postfix_relay.sh (a throwaway Postfix relaying into smtp-sink, on 127.0.0.1:2525+)
 * with Postfix's default destination concurrency unless CONCS says otherwise, and reads
 * the medians of its RESULT lines. Its own knobs (RUNS, N, N_MULTI, ...) pass through.
 */
export async function runPostfixRelay(): Promise<PostfixFigures | undefined> {
  if (!existsSync(POSTFIX_RELAY_SCRIPT)) return undefined;
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [POSTFIX_RELAY_SCRIPT], { env: { CONCS: 'default', ...process.env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`postfix_relay.sh exited with ${code}`))));
  });
  const results = output.split('\n').filter((line) => line.startsWith('RESULT'));
  const median = (pattern: RegExp) => {
    const line = results.find((l) => pattern.test(l));
    const value = line && /median=(\d+)/.exec(line)?.[1];
    return value ? Number(value) : undefined;
  };
  return {
    singleE2e: median(/single conc=default e2e/),
    singleAccept: median(/single conc=default accept/),
    multiDeliveries: median(/multi\d+ conc=default e2e rcpt-deliveries/),
    results,
  };
}
