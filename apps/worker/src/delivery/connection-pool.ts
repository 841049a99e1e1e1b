import type { SessionTarget, SmtpSession } from './smtp-session';

/**
 * Idle SMTP sessions kept for reuse across messages, keyed by MX host, address, port, TLS
 * policy (a session set up under `opportunistic` may be plain, so it never serves
 * `require_tls`) and local source address (an address belongs to one egress pool, so a
 * session never serves another pool's mail). A session idle for `idleMs` is closed with QUIT; whoever takes one
 * checks that it is ready for a transaction (SmtpSession.ready) and opens a new one when not.
 */
export class SmtpConnectionPool {
  private readonly idle = new Map<string, { session: SmtpSession; timer: NodeJS.Timeout }[]>();

  constructor(private readonly idleMs: number) {}

  private static key(target: SessionTarget): string {
    return `${target.host}|${target.address}|${target.port}|${target.policy}|${target.source?.address ?? ''}`;
  }

  take(target: SessionTarget): SmtpSession | undefined {
    const list = this.idle.get(SmtpConnectionPool.key(target));
    while (list?.length) {
      const entry = list.pop()!;
      clearTimeout(entry.timer);
      if (entry.session.usable) return entry.session;
    }
    return undefined;
  }

  put(session: SmtpSession): void {
    if (!session.usable) return;
    const key = SmtpConnectionPool.key(session.target);
    const list = this.idle.get(key) ?? [];
    const entry = {
      session,
      timer: setTimeout(() => {
        const index = list.indexOf(entry);
        if (index >= 0) list.splice(index, 1);
        if (list.length === 0 && this.idle.get(key) === list) this.idle.delete(key);
        void session.close();
      }, this.idleMs),
    };
    entry.timer.unref();
    list.push(entry);
    this.idle.set(key, list);
  }

  /** Idle sessions, for tests and shutdown. */
  size(): number {
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  closeAll(): void {
    for (const list of this.idle.values()) {
      for (const { session, timer } of list) {
        clearTimeout(timer);
        void session.close();
      }
    }
    this.idle.clear();
  }
}
