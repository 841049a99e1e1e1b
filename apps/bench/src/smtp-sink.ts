import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { endProcess } from '@mailer/testing';

/**
 * Postfix's `smtp-sink` (from Debian's postfix package) as the benchmark's recipient MX:
 * a fast SMTP server that discards what it receives and counts it (`-c`).
 */
function findSmtpSink(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin']) {
    const candidate = path.join(dir, 'smtp-sink');
    if (dir && spawnSync('test', ['-x', candidate]).status === 0) return candidate;
  }
  return undefined;
}

const SMTP_SINK_MISSING = [
  'smtp-sink was not found. It comes with Debian\'s postfix package:',
  '  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postfix',
  '(installing the package does not need the system Postfix to run).',
].join('\n');

/** smtp-sink's path; without it the benchmark cannot run, says how to install it and exits 2. */
export function requireSmtpSink(): string {
  const binary = findSmtpSink();
  if (binary) return binary;
  console.error(SMTP_SINK_MISSING);
  process.exit(2);
}

export interface SmtpSink {
  address: string;
  /** Messages received so far. */
  count(): number;
  stop(): Promise<void>;
}

/** Enough of the sink's output for its last counter line. */
const SINK_TAIL_BYTES = 300;

export async function startSmtpSink(binary: string, address: string, port: number, outputFile: string): Promise<SmtpSink> {
  // As root smtp-sink drops to the postfix user once it listens; otherwise it runs as is.
  const user = process.getuid?.() === 0 ? ['-u', 'postfix'] : [];
  const child: ChildProcess = spawn(binary, ['-c', ...user, `${address}:${port}`, '1000'], { stdio: ['ignore', openSync(outputFile, 'w'), 'inherit'] });
  const count = () => {
    // -c keeps rewriting "... mesg=N" on one line (with CRs); the last one is current. Only
    // the file's tail is read: it grows by a line per message, and the benchmark polls it
    // every 20 ms on the machine it measures.
    const fd = openSync(outputFile, 'r');
    try {
      const { size } = fstatSync(fd);
      const tail = Buffer.alloc(Math.min(SINK_TAIL_BYTES, size));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      const matches = [...tail.toString('latin1').matchAll(/mesg=(\d+)/g)];
      return matches.length > 0 ? Number(matches[matches.length - 1]![1]) : 0;
    } finally {
      closeSync(fd);
    }
  };
  for (let i = 0; ; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, address);
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (i > 50 || child.exitCode !== null) throw new Error(`smtp-sink did not start on ${address}:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    address,
    count,
    stop: () => endProcess(child, 'SIGTERM'),
  };
}
