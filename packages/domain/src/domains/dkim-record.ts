import type { DkimAlgorithm } from '../crypto/dkim-key';
import { parseTagList, unquoteTxt } from './txt-record';

/**
 * Whether a TXT value published at the selector is our DKIM key record: `v=DKIM1` when
 * present, `k=` the key's type (`rsa` when absent, RFC 6376's default; `ed25519` must be
 * said, RFC 8463) and `p=` equal to our public key, whitespace inside `p=` ignored (RFC 6376
 * allows folding it), tags in any order.
 */
export function dkimRecordMatches(value: string, publicKey: string, algorithm: DkimAlgorithm = 'rsa'): boolean {
  const tags = parseTagList(unquoteTxt(value));
  if (!tags) return false;
  const tag = (name: string) => tags.find(([seen]) => seen === name)?.[1];
  const version = tag('v');
  if (version !== undefined && version.toUpperCase() !== 'DKIM1') return false;
  if ((tag('k') ?? 'rsa').toLowerCase() !== algorithm) return false;
  const key = tag('p');
  return key !== undefined && key.replace(/\s+/g, '') === publicKey;
}
