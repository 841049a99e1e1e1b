import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIdOf } from '../ids';

/**
 * Tokens in the links the service puts into mail: one-click unsubscribe, the open pixel and
 * rewritten links (docs/api-decisions.md, "Link tokens"). A token names one delivery, one use and,
 * for a click, one link of the message; it is MACed with a key derived from ENCRYPTION_KEY, so
 * nobody can make one for another delivery or link, and it carries the day it was made so that a
 * use can refuse it after its lifetime. It is base64url, 54 characters: with `u-` in front it stays
 * within the 64 octets of a mailbox's local part.
 */
export type LinkTokenUse = 'unsubscribe' | 'open' | 'click';

export interface LinkToken {
  use: LinkTokenUse;
  deliveryId: string;
  /** The link's index in the message's HTML part; 0 for the other uses. */
  link: number;
  /** The UTC day (days since 1970-01-01) the token was made. */
  issuedDay: number;
}

const VERSION = 1;
const USE_CODE: Record<LinkTokenUse, number> = { unsubscribe: 1, open: 2, click: 3 };
const USE_OF_CODE = new Map(Object.entries(USE_CODE).map(([use, code]) => [code, use as LinkTokenUse]));
const ID_CHARS = 22;
const MAC_BYTES = 12;
const PAYLOAD_BYTES = 2 + ID_CHARS + 2 + 2;
const DAY_MS = 86_400_000;

function tokenKey(masterKey: Buffer): Buffer {
  return createHmac('sha256', masterKey).update('mailer/link-token').digest();
}

function mac(masterKey: Buffer, payload: Buffer): Buffer {
  return createHmac('sha256', tokenKey(masterKey)).update(payload).digest().subarray(0, MAC_BYTES);
}

export function daysSinceEpoch(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS);
}

export function signLinkToken(masterKey: Buffer, token: LinkToken): string {
  if (!isIdOf('delivery', token.deliveryId)) throw new Error(`not a delivery id: ${token.deliveryId}`);
  if (!Number.isInteger(token.link) || token.link < 0 || token.link > 0xffff) throw new Error(`link index out of range: ${token.link}`);
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(VERSION, 0);
  payload.writeUInt8(USE_CODE[token.use], 1);
  payload.write(token.deliveryId.slice(-ID_CHARS), 2, 'ascii');
  payload.writeUInt16BE(token.issuedDay, 2 + ID_CHARS);
  payload.writeUInt16BE(token.link, 4 + ID_CHARS);
  return Buffer.concat([payload, mac(masterKey, payload)]).toString('base64url');
}

/**
 * The token's content when this key made it for `use` and it is at most `maxAgeDays` old on
 * `now`; undefined for anything else (altered, another use, expired, not a token), so that the
 * edge answers one way whatever is wrong with it.
 */
export function verifyLinkToken(
  masterKey: Buffer,
  text: string,
  use: LinkTokenUse,
  now: Date,
  maxAgeDays: number,
): LinkToken | undefined {
  if (!/^[A-Za-z0-9_-]{54}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES) return undefined;
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), mac(masterKey, payload))) return undefined;
  if (payload.readUInt8(0) !== VERSION || USE_OF_CODE.get(payload.readUInt8(1)) !== use) return undefined;
  const issuedDay = payload.readUInt16BE(2 + ID_CHARS);
  const age = daysSinceEpoch(now) - issuedDay;
  if (age < 0 || age > maxAgeDays) return undefined;
  return {
    use,
    deliveryId: `dlv_${payload.toString('ascii', 2, 2 + ID_CHARS)}`,
    link: payload.readUInt16BE(4 + ID_CHARS),
    issuedDay,
  };
}
