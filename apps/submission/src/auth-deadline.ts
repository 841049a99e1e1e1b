import type { SMTPServer } from 'smtp-server';

/** Sessions waiting to authenticate, each closed once its time is up. */
export interface AuthDeadline {
  /** Starts a connected session's time. */
  start(sessionId: string): void;
  /** Ends it: the session authenticated or closed. */
  end(sessionId: string): void;
}

/**
 * SUBMISSION_AUTH_TIMEOUT (docs/api-decisions.md, "SMTP submission"): a session that has not
 * authenticated `ms` after it connected is answered `421 4.4.2` and closed, whatever it sent
 * meanwhile, so that unauthenticated clients hold a connection slot for seconds, not for
 * smtp-server's idle minute renewed by every NOOP. smtp-server has no per-session deadline of its
 * own; its open connections (`server.connections`) are where the session is found to close it.
 */
export function createAuthDeadline(server: () => SMTPServer, ms: number): AuthDeadline {
  const timers = new Map<string, NodeJS.Timeout>();
  const expire = (sessionId: string) => {
    timers.delete(sessionId);
    for (const connection of server().connections) {
      if (connection.session.id !== sessionId || connection.session.user) continue;
      connection.send(421, `4.4.2 No authentication within ${Math.round(ms / 1000)} s, closing connection`);
      connection.close();
    }
  };
  return {
    start(sessionId) {
      const timer = setTimeout(() => expire(sessionId), ms);
      timer.unref();
      timers.set(sessionId, timer);
    },
    end(sessionId) {
      clearTimeout(timers.get(sessionId));
      timers.delete(sessionId);
    },
  };
}
