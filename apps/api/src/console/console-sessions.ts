import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@mailer/domain';
import type { Redis } from '@mailer/queue';

/** What the server keeps of a signed-in operator; the browser holds only the session id. */
export interface ConsoleSession {
  /** Sent back with every change (a hidden form field) and compared with this (docs/api-decisions.md, "Operator console"). */
  csrfToken: string;
}

const newSecret = () => randomBytes(32).toString('base64url');

/** Sessions live in Redis: while it is unreachable, the console answers 503 (docs/api-decisions.md, "Operator console"). */
async function inRedis<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch {
    throw new AppError('service_unavailable', "The console's sessions are kept in Redis, which is unreachable; retry later.", { retryAfterSeconds: 5 });
  }
}
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Console sessions in Redis, each under the digest of its id (a copy of Redis names no usable
 * session), expiring after the idle timeout; every request of a session starts it again.
 */
export class ConsoleSessions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleTimeoutMs: number,
  ) {}

  private key(id: string): string {
    return `${this.prefix}:console:session:${createHash('sha256').update(id).digest('base64url')}`;
  }

  async open(): Promise<{ id: string; session: ConsoleSession }> {
    const id = newSecret();
    const session: ConsoleSession = { csrfToken: newSecret() };
    await inRedis(() => this.redis.set(this.key(id), JSON.stringify(session), 'PX', this.idleTimeoutMs));
    return { id, session };
  }

  /** The live session of this id, its idle period started again; undefined when unknown, expired or malformed. */
  async touch(id: string | undefined): Promise<ConsoleSession | undefined> {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const key = this.key(id);
    const [[, stored], [, renewed]] = (await inRedis(() => this.redis.multi().get(key).pexpire(key, this.idleTimeoutMs).exec())) as [[null, string | null], [null, number]];
    if (stored === null || renewed !== 1) return undefined;
    return JSON.parse(stored) as ConsoleSession;
  }

  async close(id: string | undefined): Promise<void> {
    if (id !== undefined && SESSION_ID.test(id)) await inRedis(() => this.redis.del(this.key(id)));
  }
}

/** Whether a change carries the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(session: ConsoleSession, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(session.csrfToken));
}
