import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The reference MTA benchmark shipped with the task (see its README). */
export const POSTFIX_RELAY_SCRIPT = process.env.POSTFIX_RELAY_SCRIPT ?? '/work/shared/bench/postfix_relay.sh';

/** One round of one phase of postfix_relay.sh. */
export interface PostfixRound {
  /** End-to-end msg/s (single) or recipient deliveries/s (multi). */
  e2e: number;
  /** Injection rate, msg/s (smtp-source until the last 250). */
  accept?: number;
}

/**
 * Runs one round (RUNS=1) of one phase of postfix_relay.sh: a throwaway Postfix relaying
 * into smtp-sink on 127.0.0.1:2525+, with Postfix's default destination concurrency unless
 * CONCS says otherwise; with `dkim`, OpenDKIM signs as a milter in front of its queue (the
 * like-for-like: the same RSA work per message as ours), smtp-source injecting on `sessions`
 * connections. Its other knobs (N, N_MULTI, WARMUP, ...) pass through.
 */
export async function runPostfixRound(phase: 'single' | 'multi', dkim: boolean, sessions: number): Promise<PostfixRound | undefined> {
  if (!existsSync(POSTFIX_RELAY_SCRIPT)) return undefined;
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('bash', [POSTFIX_RELAY_SCRIPT], {
      env: { CONCS: 'default', ...process.env, SESSIONS: String(sessions), RUNS: '1', PHASES: phase, DKIM: dkim ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`postfix_relay.sh exited with ${code}`))));
  });
  const results = output.split('\n').filter((line) => line.startsWith('RESULT'));
  const figure = (pattern: RegExp) => {
    const value = /median=(\d+)/.exec(results.find((l) => pattern.test(l)) ?? '')?.[1];
    return value ? Number(value) : undefined;
  };
  const e2e = phase === 'single' ? figure(/single conc=default e2e/) : figure(/multi\d+ conc=default e2e rcpt-deliveries/);
  if (e2e === undefined) throw new Error(`postfix_relay.sh printed no ${phase} result`);
  return { e2e, accept: phase === 'single' ? figure(/single conc=default accept/) : undefined };
}
