import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { ID_PREFIX, isIdOf } from '../ids';

/**
 * The return path (docs/api-decisions.md, "Return path"): each domain's return-path host
 * `<label>.<domain>` receives the delivery status notifications and complaints of its mail,
 * addressed to `b-<token>@<host>`, where the token names one delivery and carries a MAC
 * keyed from ENCRYPTION_KEY, so it can be neither forged nor guessed.
 */
export const returnPathHost = (domain: string, label: string): string => `${label}.${domain}`;

const LOCAL_PART_PREFIX = 'b-';
const ID_DIGITS = 26; // a delivery id's 22 base62 characters (< 62^22 < 36^26) in base 36
const MAC_DIGITS = 24; // 96 bits of HMAC-SHA256, hex
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_SHAPE = new RegExp(`^[0-9a-z]{${ID_DIGITS}}[0-9a-f]{${MAC_DIGITS}}$`);

/** The token key: derived from ENCRYPTION_KEY under a label of its own (HKDF), so it serves no other use. */
export function returnPathKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'mailer/return-path-token', 32));
}

const mac = (key: Buffer, deliveryId: string) => createHmac('sha256', key).update(deliveryId).digest('hex').slice(0, MAC_DIGITS);

/**
 * The delivery id in lower-case base 36 (local parts are compared case-insensitively by many
 * servers, so the case-sensitive base62 id cannot go there as it is), then its MAC: 50
 * characters, so `b-<token>` fits a local part (64 octets) easily.
 */
export function returnPathToken(key: Buffer, deliveryId: string): string {
  const digits = deliveryId.slice(deliveryId.indexOf('_') + 1);
  let value = 0n;
  for (const c of digits) value = value * 62n + BigInt(BASE62.indexOf(c));
  return value.toString(36).padStart(ID_DIGITS, '0') + mac(key, deliveryId);
}

/** The delivery a token names, or undefined when it is malformed or its MAC does not verify (forged). */
export function verifyReturnPathToken(key: Buffer, token: string): string | undefined {
  const lower = token.toLowerCase();
  if (!TOKEN_SHAPE.test(lower)) return undefined;
  let value = 0n;
  for (const c of lower.slice(0, ID_DIGITS)) value = value * 36n + BigInt(parseInt(c, 36));
  let digits = '';
  for (let i = 0; i < 22; i++, value /= 62n) digits = BASE62[Number(value % 62n)] + digits;
  const deliveryId = `${ID_PREFIX.delivery}_${digits}`;
  if (value !== 0n || !isIdOf('delivery', deliveryId)) return undefined;
  const expected = Buffer.from(mac(key, deliveryId));
  const given = Buffer.from(lower.slice(ID_DIGITS));
  return timingSafeEqual(expected, given) ? deliveryId : undefined;
}

/** `b-<token>@<label>.<domain>`. */
export const returnPathAddress = (key: Buffer, deliveryId: string, domain: string, label: string): string =>
  `${LOCAL_PART_PREFIX}${returnPathToken(key, deliveryId)}@${returnPathHost(domain, label)}`;

/**
 * Splits an address the inbound listener was given at RCPT TO: the domain whose return-path
 * host it names and the token, or undefined when it is not a return-path address at all.
 */
export function parseReturnPathAddress(address: string, label: string): { domain: string; token: string } | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0) return undefined;
  const local = address.slice(0, at).toLowerCase();
  const host = address.slice(at + 1).toLowerCase().replace(/\.$/, '');
  if (!local.startsWith(LOCAL_PART_PREFIX) || !host.startsWith(`${label}.`)) return undefined;
  const domain = host.slice(label.length + 1);
  return domain.includes('.') ? { domain, token: local.slice(LOCAL_PART_PREFIX.length) } : undefined;
}

/** What an address the inbound listener is given is: no return-path address, one with a forged token, or a verified one. */
export type ReturnPathRecipient = { kind: 'other' } | { kind: 'forged' } | { kind: 'verified'; deliveryId: string; domain: string };

/**
 * Reads an address given to the inbound listener (at RCPT TO, or named by a report): a
 * return-path address whose token verifies gives its delivery and the domain whose
 * return-path host it names. One HMAC, no lookup: a forged token costs nothing to refuse.
 */
export function readReturnPathRecipient(key: Buffer, address: string, label: string): ReturnPathRecipient {
  const parsed = parseReturnPathAddress(address, label);
  if (!parsed) return { kind: 'other' };
  const deliveryId = verifyReturnPathToken(key, parsed.token);
  return deliveryId ? { kind: 'verified', deliveryId, domain: parsed.domain } : { kind: 'forged' };
}

/**
 * The SMTP envelope sender (`MAIL FROM`) of one transaction: the return-path address of
 * `deliveryId` (the transaction's first delivery, which identifies the others, see the inbound
 * side) once the domain's return path is verified, otherwise the sender's own address.
 */
export function envelopeSender(options: {
  senderEmail: string;
  domain: string;
  returnPathVerified: boolean;
  deliveryId: string;
  key: Buffer;
  label: string;
}): string {
  if (!options.returnPathVerified) return options.senderEmail;
  return returnPathAddress(options.key, options.deliveryId, options.domain, options.label);
}
