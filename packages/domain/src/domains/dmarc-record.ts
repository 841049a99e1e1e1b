import { parseTagList, unquoteTxt } from './txt-record';

const POLICIES = ['none', 'quarantine', 'reject'];

/** Records that do not begin with `v=DMARC1` are not DMARC records at all (RFC 7489 section 6.6.3). */
export function isDmarcCandidate(value: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/i.test(unquoteTxt(value));
}

/** A usable DMARC policy record: `v=DMARC1` first, a valid `p=`, and `sp=` valid when present. */
export function isValidDmarcRecord(value: string): boolean {
  const tags = parseTagList(unquoteTxt(value));
  if (!tags || tags.length === 0) return false;
  const [first] = tags;
  if (first![0] !== 'v' || first![1].toUpperCase() !== 'DMARC1') return false;
  const tag = (name: string) => tags.find(([seen]) => seen === name)?.[1];
  const policy = tag('p');
  if (policy === undefined || !POLICIES.includes(policy.toLowerCase())) return false;
  const subdomainPolicy = tag('sp');
  return subdomainPolicy === undefined || POLICIES.includes(subdomainPolicy.toLowerCase());
}
