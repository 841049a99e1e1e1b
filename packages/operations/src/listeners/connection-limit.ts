import { connectionSource } from '@mailer/domain';

/** The caps of an SMTP listener (INBOUND_MAX_CONNECTIONS…, SUBMISSION_MAX_CONNECTIONS…). */
export interface ConnectionCaps {
  /** Open connections of one source (an IPv4 address or an IPv6 /64, connectionSource). */
  perAddress: number;
  /** Open connections over all sources. */
  total: number;
}

/**
 * Open connections per source and in all (docs/api-decisions.md, "Threat model"): the inbound
 * and the submission listeners count each session in `onConnect` and answer `421 4.7.0` to one
 * past either cap. smtp-server's own `maxClients` is set above the total (CONNECTION_BACKSTOP):
 * it answers `421 4.4.2` at once, before `onConnect`, so it is only the backstop for a burst
 * of sockets still in their TLS handshake, which no reply can reach.
 */
export interface ConnectionLimit {
  /** Counts a new session's connection, or answers false when its source or the listener already holds its cap. */
  open(sessionId: string, remoteAddress: string): boolean;
  /** Forgets a session's connection (any session: those refused or never counted are ignored). */
  close(sessionId: string): void;
}

/** smtp-server's `maxClients` for a listener of `caps`: sockets beyond it are dropped unanswered. */
export const connectionBackstop = (caps: ConnectionCaps): number => 2 * caps.total;

export function createConnectionLimit(caps: ConnectionCaps): ConnectionLimit {
  const open = new Map<string, number>();
  const sourceOf = new Map<string, string>();
  return {
    open(sessionId, remoteAddress) {
      const source = connectionSource(remoteAddress);
      const count = open.get(source) ?? 0;
      if (count >= caps.perAddress || sourceOf.size >= caps.total) return false;
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
