import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIdOf } from '../ids';

/**
 * Tokens in the links the service puts into mail: one-click unsubscribe, and the open pixel and
 * rewritten links of tracking (docs/api-decisions.md, "Unsubscribe", Tokens). A token names one
 * delivery, one use and, for a click, one link of the message; it is MACed with a key derived
 * from ENCRYPTION_KEY for this purpose alone, so nobody can make one for another delivery or
 * link, and it carries the UTC day it was made, so its age is known without a lookup. It is
 * base64url, 54 characters: with `u-` in front it stays within the 64 octets of a local part.
 */
export type LinkTokenUse = 'unsubscribe' | 'open' | 'click';

export interface LinkToken {
  deliveryId: string;
  use: LinkTokenUse;
  /** The link's index in the message's HTML part; 0 for the other uses. */
  link: number;
  /** The UTC day (days since 1970-01-01) the token was made. */
  issuedDay: number;
}

/** How many days after the day it was made a token is still good (contract section 26: 60 days). */
export const LINK_TOKEN_VALID_DAYS = 60;

const VERSION = 1;
const USE_CODE: Record<LinkTokenUse, number> = { unsubscribe: 1, open: 2, click: 3 };
const USE_OF_CODE = new Map(Object.entries(USE_CODE).map(([use, code]) => [code, use as LinkTokenUse]));
/** A delivery id is `dlv_` and 22 base62 characters: the token carries the 22. */
const ID_CHARS = 22;
const MAC_BYTES = 12;
const PAYLOAD_BYTES = 2 + ID_CHARS + 2 + 2;
const DAY_MS = 86_400_000;

function mac(masterKey: Buffer, payload: Buffer): Buffer {
  const key = createHmac('sha256', masterKey).update('mailer/link-token').digest();
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
}

/** The UTC day of `at`, as tokens count days. */
export function daysSinceEpoch(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS);
}

export function signLinkToken(token: LinkToken, masterKey: Buffer): string {
  if (!isIdOf('delivery', token.deliveryId)) throw new Error(`not a delivery id: ${token.deliveryId}`);
  if (!Number.isInteger(token.link) || token.link < 0 || token.link > 0xffff) throw new Error(`link index out of range: ${token.link}`);
  if (!Number.isInteger(token.issuedDay) || token.issuedDay < 0 || token.issuedDay > 0xffff) throw new Error(`issue day out of range: ${token.issuedDay}`);
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(VERSION, 0);
  payload.writeUInt8(USE_CODE[token.use], 1);
  payload.write(token.deliveryId.slice(-ID_CHARS), 2, 'ascii');
  payload.writeUInt16BE(token.issuedDay, 2 + ID_CHARS);
  payload.writeUInt16BE(token.link, 4 + ID_CHARS);
  return Buffer.concat([payload, mac(masterKey, payload)]).toString('base64url');
}

/**
 * The token's content when this key made it and it is at most LINK_TOKEN_VALID_DAYS old on
 * `today` (a day of daysSinceEpoch); undefined for anything else (altered, made under another
 * key, expired, not a token), so that the edge answers one way whatever is wrong with it. The
 * caller checks the use.
 */
export function verifyLinkToken(text: string, masterKey: Buffer, today: number): LinkToken | undefined {
  const bytes = Buffer.from(text, 'base64url');
  // One spelling per token: the unused bits of the last character cannot make a second one.
  if (bytes.length !== PAYLOAD_BYTES + MAC_BYTES || bytes.toString('base64url') !== text) return undefined;
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  if (!timingSafeEqual(bytes.subarray(PAYLOAD_BYTES), mac(masterKey, payload))) return undefined;
  const use = USE_OF_CODE.get(payload.readUInt8(1));
  if (payload.readUInt8(0) !== VERSION || use === undefined) return undefined;
  const issuedDay = payload.readUInt16BE(2 + ID_CHARS);
  const age = today - issuedDay;
  if (age < 0 || age > LINK_TOKEN_VALID_DAYS) return undefined;
  const deliveryId = `dlv_${payload.toString('ascii', 2, 2 + ID_CHARS)}`;
  if (!isIdOf('delivery', deliveryId)) return undefined;
  return { deliveryId, use, link: payload.readUInt16BE(4 + ID_CHARS), issuedDay };
}
