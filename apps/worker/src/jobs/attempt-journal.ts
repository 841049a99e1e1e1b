import { closeSync, existsSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isDatabaseUnavailable, type AttemptWrite, type RecordedAttempt } from '@mailer/operations';
import type { Logger } from '@mailer/logger';

/** While records wait in the journal, it tries to write them after these pauses (the last one repeating). */
const FLUSH_RETRY_MS = [200, 400, 800, 1_600];

/** Dates travel as ISO strings; every date of an attempt write is named `…At`. */
const reviveDates = (key: string, value: unknown) => (typeof value === 'string' && key.endsWith('At') ? new Date(value) : value);

interface Kept {
  write: AttemptWrite;
  resolve(recorded: RecordedAttempt): void;
  reject(error: Error): void;
}

/**
 * The attempt records the database did not take, kept on this daemon's disk until it does
 * (docs/api-decisions.md, "Delivery", a record the database did not take). A message a server
 * accepted must never be sent again: its record is appended to the journal file and fsync'd
 * before anything else, then written (as `journaled`, so that it applies to the delivery under
 * whichever lease holds it by then) as soon as PostgreSQL answers, by a timer and before every
 * claim, so that no claim of this daemon takes a delivery whose outcome it holds unwritten. The
 * file is emptied once everything in it is written; what a daemon that died left there is
 * written at its next start. Writing a record twice is harmless: the second finds the
 * delivery no longer `sending` and changes nothing.
 */
export class AttemptJournal {
  private readonly kept: Kept[] = [];
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private failures = 0;

  constructor(
    private readonly file: string,
    private readonly writeAll: (writes: AttemptWrite[]) => Promise<RecordedAttempt[]>,
    private readonly logger: Logger,
  ) {}

  /** Records left by an earlier run of this daemon: written by the next flush. */
  load(): void {
    if (!existsSync(this.file)) return;
    const lines = readFileSync(this.file, 'utf8').split('\n').filter((line) => line.trim() !== '');
    for (const line of lines) {
      try {
        this.kept.push({ write: JSON.parse(line, reviveDates) as AttemptWrite, resolve: () => undefined, reject: () => undefined });
      } catch {
        // A line cut short by a crash while it was appended: its record was never acknowledged as kept.
      }
    }
    if (this.kept.length > 0) {
      this.logger.warn('attempt records found in the journal, to be written', { records: this.kept.length, file: this.file });
      this.schedule();
    }
  }

  /** Whether records wait here. */
  get pending(): number {
    return this.kept.length;
  }

  /**
   * Keeps a record on disk (fsync'd before this returns), then resolves once the database
   * took it. Rejects only if the daemon stops first (the record stays in the file for its next start).
   */
  keep(write: AttemptWrite): Promise<RecordedAttempt> {
    const journaled = { ...write, journaled: true };
    this.append(journaled);
    return new Promise((resolve, reject) => {
      this.kept.push({ write: journaled, resolve, reject });
      this.schedule();
    });
  }

  /** Writes what waits here; rejects while the database does not take it. At once when nothing waits. */
  flush(): Promise<void> {
    if (this.kept.length === 0) return Promise.resolve();
    return (this.flushing ??= this.writeKept().finally(() => (this.flushing = undefined)));
  }

  /** Stops retrying; records still waiting stay in the file, for the next start. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const k of this.kept.splice(0)) k.reject(new Error('stopped with the record in the journal'));
  }

  /**
   * Writes every record kept; rejects while the database is away. A failure of another kind
   * (records the database refuses) drops them, logged, rather than holding every claim back.
   */
  private async writeKept(): Promise<void> {
    const batch = this.kept.slice();
    let recorded: RecordedAttempt[];
    try {
      recorded = await this.writeAll(batch.map((k) => k.write));
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      this.logger.error('journaled attempt records refused by the database, dropped', { records: batch.length, error: (error as Error).message });
      this.settle(batch);
      batch.forEach((k) => k.reject(error as Error));
      return;
    }
    this.settle(batch);
    batch.forEach((k, i) => k.resolve(recorded[i]!));
    this.logger.info('journaled attempt records written', { records: batch.length });
  }

  /** The batch, first in the journal, is done with: the file is emptied once nothing else waits. */
  private settle(batch: readonly Kept[]): void {
    this.kept.splice(0, batch.length);
    if (this.kept.length === 0) this.truncate();
    this.failures = 0;
  }

  private schedule(): void {
    if (this.timer || this.kept.length === 0) return;
    const pause = FLUSH_RETRY_MS[Math.min(this.failures, FLUSH_RETRY_MS.length - 1)]!;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush().then(
        () => this.schedule(),
        (error: Error) => {
          this.failures++;
          this.logger.warn('journaled attempt records not written yet; trying again', { records: this.kept.length, error: error.message });
          this.schedule();
        },
      );
    }, pause);
  }

  private append(write: AttemptWrite): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const fd = openSync(this.file, 'a');
    try {
      writeSync(fd, `${JSON.stringify(write)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private truncate(): void {
    if (!existsSync(this.file)) return;
    const fd = openSync(this.file, 'r+');
    try {
      ftruncateSync(fd, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
