import { verifyLinkToken } from '../crypto/link-token';
import { returnPathHost } from './return-path';

/**
 * The mailto: address of a delivery's List-Unsubscribe (docs/api-decisions.md, "Unsubscribe"):
 * `u-<token>@<label>.<domain>`, at the domain's return-path host, whose MX is the inbound
 * listener. The token is a link token (signLinkToken, use `unsubscribe`), base64url: its case
 * matters, so the local part is read as it was sent.
 */
const LOCAL_PART_PREFIX = 'u-';

export const unsubscribeAddress = (token: string, domain: string, label: string): string => `${LOCAL_PART_PREFIX}${token}@${returnPathHost(domain, label)}`;

/** What an address the inbound listener is given is: no unsubscribe address, one whose token does not verify, or a verified one. */
export type UnsubscribeRecipient = { kind: 'other' } | { kind: 'forged' } | { kind: 'verified'; deliveryId: string; domain: string };

/**
 * Reads an address given at RCPT TO: an unsubscribe address whose token verifies today (made
 * under this key, for `unsubscribe`, within its 60 days) gives its delivery and the domain
 * whose return-path host it names. One HMAC, no lookup.
 */
export function readUnsubscribeRecipient(encryptionKey: Buffer, address: string, label: string, today: number): UnsubscribeRecipient {
  const at = address.lastIndexOf('@');
  if (at < 0) return { kind: 'other' };
  const local = address.slice(0, at);
  const host = address.slice(at + 1).toLowerCase().replace(/\.$/, '');
  if (local.slice(0, LOCAL_PART_PREFIX.length).toLowerCase() !== LOCAL_PART_PREFIX || !host.startsWith(`${label}.`)) return { kind: 'other' };
  const domain = host.slice(label.length + 1);
  if (!domain.includes('.')) return { kind: 'other' };
  const token = verifyLinkToken(local.slice(LOCAL_PART_PREFIX.length), encryptionKey, today);
  return token?.use === 'unsubscribe' ? { kind: 'verified', deliveryId: token.deliveryId, domain } : { kind: 'forged' };
}
