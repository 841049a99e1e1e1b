import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where a keyset page ends: lists are ordered by (created_at desc, id desc). */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/**
 * A cursor names the list and account that issued it and is MAC-ed, so a tampered,
 * invented or another list's cursor is refused (400 invalid_cursor) instead of leaking
 * or skipping rows. `scope` is e.g. `emails:acc_…` or `senders:dom_…`.
 */
export interface CursorCodec {
  encode(scope: string, position: CursorPosition): string;
  /** Undefined when the cursor was not issued by this service for this scope. */
  decode(scope: string, cursor: string): CursorPosition | undefined;
}

export function createCursorCodec(secret: Buffer): CursorCodec {
  const key = createHmac('sha256', secret).update('mailer/cursor/v1').digest();
  const mac = (scope: string, payload: string) => createHmac('sha256', key).update(`${scope}\n${payload}`).digest().subarray(0, 16);

  return {
    encode(scope, { createdAt, id }) {
      const payload = Buffer.from(JSON.stringify([createdAt.getTime(), id])).toString('base64url');
      return `${payload}.${mac(scope, payload).toString('base64url')}`;
    },
    decode(scope, cursor) {
      const match = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{22})$/.exec(cursor);
      if (!match) return undefined;
      const [, payload, tag] = match as unknown as [string, string, string];
      const given = Buffer.from(tag, 'base64url');
      const expected = mac(scope, payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const [ms, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [unknown, unknown];
        if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || typeof id !== 'string') return undefined;
        return { createdAt: new Date(ms), id };
      } catch {
        return undefined;
      }
    },
  };
}
