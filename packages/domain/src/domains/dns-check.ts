import type { DkimAlgorithm } from '../crypto/dkim-key';
import { dkimRecordMatches } from './dkim-record';
import { isDmarcCandidate, isValidDmarcRecord } from './dmarc-record';
import { unquoteTxt } from './txt-record';
import { returnPathMatches } from '../return-path/return-path-records';
import type { DnsComponent, ReturnPathSettings } from './dns-records';

/**
 * The outcome of one DNS lookup, as a value: records found; authoritatively none
 * (NXDOMAIN, or the name exists without such records); or a temporary failure
 * (SERVFAIL, timeout, refused, deadline) that says nothing about the records.
 */
export type DnsAnswer<T> =
  | { kind: 'found'; values: T[] }
  | { kind: 'missing'; nxdomain: boolean }
  | { kind: 'temporary'; reason: string };

export const VERIFICATION_STATUS_VALUES = ['not_checked', 'missing', 'mismatch', 'verified'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUS_VALUES)[number];
export type LastCheckStatus = 'completed' | 'temporary_failure';

/** TXT answers, each record's strings already joined. */
export interface DomainDnsObservation {
  ownership: DnsAnswer<string>;
  /** The active RSA key's selector. */
  dkim: DnsAnswer<string>;
  /** The active Ed25519 key's selector, looked up only when the domain has that key. */
  dkimEd25519?: DnsAnswer<string>;
  /** The selectors of a pending rotation's keys. */
  pendingDkim?: { selector: string; answer: DnsAnswer<string> }[];
  dmarc: DnsAnswer<string>;
  /** `_dmarc.<organizational domain>`, looked up only when that differs from the domain. */
  organizationalDmarc?: DnsAnswer<string>;
  /** MX hosts of the return-path host. */
  returnPathMx: DnsAnswer<string>;
  /** TXT records of the return-path host. */
  returnPathTxt: DnsAnswer<string>;
  /** MX hosts of the receiving host, looked up only while receiving is on. */
  receivingMx?: DnsAnswer<string>;
  /** The CNAME target of the tracking host, looked up only while opens or clicks are tracked. */
  trackingCname?: DnsAnswer<string>;
}

export interface DnsCheckOutcome {
  /** New status per component; a component left out keeps its status (its lookup failed temporarily). */
  components: Partial<Record<DnsComponent, VerificationStatus>>;
  /** The pending keys' records, by selector; one whose lookup failed temporarily is left out. */
  pendingDkim: { selector: string; status: VerificationStatus }[];
  lastCheckStatus: LastCheckStatus;
}

/** A key whose record a check verifies. */
export interface ExpectedDkimKey {
  selector: string;
  algorithm: DkimAlgorithm;
  publicKey: string;
}

type Judgement = VerificationStatus | 'temporary';

const sameHost = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

function judge(answer: DnsAnswer<string>, matches: (value: string) => boolean): Judgement {
  if (answer.kind === 'temporary') return 'temporary';
  if (answer.kind === 'missing' || answer.values.length === 0) return 'missing';
  return answer.values.some(matches) ? 'verified' : 'mismatch';
}

/** One name's DMARC answer: exactly one DMARC record, and valid (several make none apply, RFC 7489 6.6.3). */
function judgeDmarc(answer: DnsAnswer<string>): Judgement {
  if (answer.kind !== 'found') return judge(answer, () => false);
  const candidates = answer.values.filter(isDmarcCandidate);
  return judge(answer, () => candidates.length === 1 && isValidDmarcRecord(candidates[0]!));
}

/** A valid record at either name counts; a temporary failure outranks a definite miss, since the record may be there. */
function combineDmarc(levels: Judgement[]): Judgement {
  for (const outcome of ['verified', 'temporary', 'mismatch'] as const) {
    if (levels.includes(outcome)) return outcome;
  }
  return 'missing';
}

/** MX and SPF together: a temporary failure of either says nothing; no MX is `missing`; a TXT-less host a `mismatch`. */
function judgeReturnPath(mx: DnsAnswer<string>, txt: DnsAnswer<string>, settings: ReturnPathSettings): Judgement {
  if (mx.kind === 'temporary' || txt.kind === 'temporary') return 'temporary';
  const mxHosts = mx.kind === 'found' ? mx.values : [];
  if (mxHosts.length === 0) return 'missing';
  return returnPathMatches(mxHosts, txt.kind === 'found' ? txt.values : [], settings) ? 'verified' : 'mismatch';
}

/**
 * Turns observed DNS answers into component statuses (docs/api-decisions.md, "Domains"). Each
 * component moves on its own; a temporary failure changes no component and makes the
 * check's status `temporary_failure`.
 */
export function evaluateDnsCheck(
  observation: DomainDnsObservation,
  expected: {
    ownershipToken: string;
    dkimPublicKey: string;
    /** The active Ed25519 key's `p=`, when the domain has one. */
    dkimEd25519PublicKey?: string | null;
    pendingDkim?: readonly ExpectedDkimKey[];
    returnPath: ReturnPathSettings;
  },
): DnsCheckOutcome {
  const ed25519 = observation.dkimEd25519 && expected.dkimEd25519PublicKey;
  const judgements: Partial<Record<DnsComponent, Judgement>> = {
    ownership: judge(observation.ownership, (value) => unquoteTxt(value) === expected.ownershipToken),
    dkim: judge(observation.dkim, (value) => dkimRecordMatches(value, expected.dkimPublicKey)),
    ...(ed25519 ? { dkim_ed25519: judge(observation.dkimEd25519!, (value) => dkimRecordMatches(value, ed25519, 'ed25519')) } : {}),
    dmarc: combineDmarc([observation.dmarc, observation.organizationalDmarc].filter((a) => a !== undefined).map(judgeDmarc)),
    return_path: judgeReturnPath(observation.returnPathMx, observation.returnPathTxt, expected.returnPath),
    ...(observation.receivingMx ? { receiving: judge(observation.receivingMx, (host) => sameHost(host, expected.returnPath.inboundHost)) } : {}),
    ...(observation.trackingCname ? { tracking: judge(observation.trackingCname, (host) => sameHost(host, expected.returnPath.trackingHost)) } : {}),
  };
  const components: DnsCheckOutcome['components'] = {};
  let temporary = false;
  for (const [purpose, judgement] of Object.entries(judgements) as [DnsComponent, Judgement][]) {
    if (judgement === 'temporary') temporary = true;
    else components[purpose] = judgement;
  }
  const pendingDkim: DnsCheckOutcome['pendingDkim'] = [];
  for (const key of expected.pendingDkim ?? []) {
    const answer = observation.pendingDkim?.find((seen) => seen.selector === key.selector)?.answer;
    const judgement = answer ? judge(answer, (value) => dkimRecordMatches(value, key.publicKey, key.algorithm)) : 'temporary';
    if (judgement === 'temporary') temporary = true;
    else pendingDkim.push({ selector: key.selector, status: judgement });
  }
  return { components, pendingDkim, lastCheckStatus: temporary ? 'temporary_failure' : 'completed' };
}
