import { connectionSource } from '@mailer/domain';

/** Open connections per source, each refused past `max` (INBOUND_MAX_CONNECTIONS_PER_ADDRESS). */
export interface ConnectionLimit {
  /** Counts a new session's connection, or answers false when its source already holds `max`. */
  open(sessionId: string, remoteAddress: string): boolean;
  /** Forgets a session's connection (any session: those refused or never counted are ignored). */
  close(sessionId: string): void;
}

export function createConnectionLimit(max: number): ConnectionLimit {
  const open = new Map<string, number>();
  const sourceOf = new Map<string, string>();
  return {
    open(sessionId, remoteAddress) {
      const source = connectionSource(remoteAddress);
      const count = open.get(source) ?? 0;
      if (count >= max) return false;
      open.set(source, count + 1);
      sourceOf.set(sessionId, source);
      return true;
    },
    close(sessionId) {
      const source = sourceOf.get(sessionId);
      if (source === undefined) return;
      sourceOf.delete(sessionId);
      const count = open.get(source)! - 1;
      if (count > 0) open.set(source, count);
      else open.delete(source);
    },
  };
}
