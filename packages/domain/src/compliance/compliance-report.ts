import type { DnsAnswer, VerificationStatus } from '../domains/dns-check';
import type { EmailType } from '../emails/email-limits';
import { MAILBOX_PROVIDERS, PROVIDER_REQUIREMENTS, type ComplianceRequirement, type ComplianceStatus, type MailboxProvider, type ProviderRules } from './provider-requirements';

/** mailauth's SPF verdict for one egress address against the envelope domain (RFC 7208 section 2.6). */
export interface SpfEvaluation {
  address: string;
  result: string;
}

/** An egress address's PTR names, and the A (IPv4) or AAAA (IPv6) answer of each name. */
export interface ReverseDnsObservation {
  address: string;
  ptr: DnsAnswer<string>;
  forward: { name: string; answer: DnsAnswer<string> }[];
}

/** Accepted attempts at one provider's MX hosts over the last 24 h, by whether the session had TLS. */
export interface ProviderTlsCounts {
  withTls: number;
  inClear: number;
}

/** One stream's reputation counts over the last 24 h (docs/api-decisions.md, "Reputation"). */
export interface StreamComplaintCounts {
  stream: EmailType;
  accepted: number;
  complaints: number;
}

/** What complianceReport judges; gathered by the operation, no I/O here. */
export interface ComplianceFacts {
  domain: string;
  /** The MAIL FROM domain: the return-path host once its records verified, else the domain itself (envelopeSender). */
  envelopeDomain: string;
  /** Per egress address of the domain's account; empty when the service does not know the addresses it sends from. */
  spf: readonly SpfEvaluation[];
  /** The domain's checks' statuses of the active RSA key's record and of DMARC. */
  dkim: VerificationStatus;
  dmarc: VerificationStatus;
  /** Per egress address, as `spf`. */
  reverseDns: readonly ReverseDnsObservation[];
  /** By provider; a provider left out had no accepted attempt. */
  tls: Partial<Record<MailboxProvider, ProviderTlsCounts>>;
  /** Whether every broadcast message carries the RFC 8058 headers. */
  oneClickUnsubscribe: boolean;
  /** One entry per stream. */
  complaintRates: readonly StreamComplaintCounts[];
}

export interface RequirementVerdict {
  requirement: ComplianceRequirement;
  status: ComplianceStatus;
  reason: string;
  /** Complaint-rate rows only: the stream the rate is of. */
  stream?: EmailType;
}

export interface ProviderCompliance {
  provider: MailboxProvider;
  requirements: RequirementVerdict[];
}

const NO_ADDRESSES =
  'the service does not know the addresses it sends from: the account has no egress pool with addresses and OUTBOUND_IPS names none';

const percent = (rate: number) => `${(rate * 100).toFixed(2).replace(/\.?0+$/, '')} %`;
const list = (items: readonly string[]) => items.join(', ');
const count = (n: number, noun: string, plural = `${noun}s`) => `${n} ${n === 1 ? noun : plural}`;

function spfVerdict(facts: ComplianceFacts): Omit<RequirementVerdict, 'requirement'> {
  if (facts.spf.length === 0) return { status: 'unknown', reason: NO_ADDRESSES };
  const failing = facts.spf.filter((e) => e.result !== 'pass' && e.result !== 'temperror');
  const alignment =
    facts.envelopeDomain === facts.domain
      ? `the envelope domain is ${facts.domain} itself (strict alignment)`
      : `the envelope domain ${facts.envelopeDomain} is under ${facts.domain} (relaxed alignment)`;
  if (failing.length > 0) {
    return { status: 'fail', reason: `SPF of ${facts.envelopeDomain} does not pass for ${list(failing.map((e) => `${e.address} (${e.result})`))}` };
  }
  const temporary = facts.spf.filter((e) => e.result === 'temperror');
  if (temporary.length > 0) return { status: 'unknown', reason: `SPF of ${facts.envelopeDomain} could not be looked up for ${list(temporary.map((e) => e.address))}` };
  return { status: 'pass', reason: `SPF of ${facts.envelopeDomain} passes for every egress address; ${alignment}` };
}

/** From the domain's checks: not checked yet is unknown; missing or mismatched fails. */
function recordVerdict(status: VerificationStatus, what: string, passed: string): Omit<RequirementVerdict, 'requirement'> {
  if (status === 'verified') return { status: 'pass', reason: passed };
  if (status === 'not_checked') return { status: 'unknown', reason: `the ${what} record has not been checked yet (POST /v1/domains/{id}/check-dns)` };
  return { status: 'fail', reason: `the ${what} record is ${status === 'missing' ? 'not published' : 'published with another value'}, as the last DNS check found` };
}

type AddressJudgement = { kind: 'confirmed'; name: string } | { kind: 'unconfirmed'; detail: string } | { kind: 'temporary' };

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Forward-confirmed: a PTR name of the address resolves (A or AAAA, as its family) back to it. */
function judgeReverseDns(observation: ReverseDnsObservation): AddressJudgement {
  if (observation.ptr.kind === 'temporary') return { kind: 'temporary' };
  if (observation.ptr.kind === 'missing' || observation.ptr.values.length === 0) return { kind: 'unconfirmed', detail: `${observation.address} has no PTR record` };
  const confirmed = observation.forward.find((f) => f.answer.kind === 'found' && f.answer.values.some((a) => sameAddress(a, observation.address)));
  if (confirmed) return { kind: 'confirmed', name: confirmed.name };
  if (observation.forward.some((f) => f.answer.kind === 'temporary')) return { kind: 'temporary' };
  return { kind: 'unconfirmed', detail: `${list(observation.ptr.values)}, the PTR of ${observation.address}, does not resolve back to it` };
}

function reverseDnsVerdict(facts: ComplianceFacts): Omit<RequirementVerdict, 'requirement'> {
  if (facts.reverseDns.length === 0) return { status: 'unknown', reason: NO_ADDRESSES };
  const confirmed: string[] = [];
  const unconfirmed: string[] = [];
  const temporary: string[] = [];
  for (const observation of facts.reverseDns) {
    const judgement = judgeReverseDns(observation);
    if (judgement.kind === 'confirmed') confirmed.push(`${observation.address} (${judgement.name})`);
    else if (judgement.kind === 'unconfirmed') unconfirmed.push(judgement.detail);
    else temporary.push(observation.address);
  }
  if (unconfirmed.length > 0) return { status: 'fail', reason: list(unconfirmed) };
  if (temporary.length > 0) return { status: 'unknown', reason: `the reverse DNS of ${list(temporary)} could not be looked up` };
  return { status: 'pass', reason: `every egress address is forward-confirmed: ${list(confirmed)}` };
}

function tlsVerdict(rules: ProviderRules, counts: ProviderTlsCounts | undefined): Omit<RequirementVerdict, 'requirement'> {
  if (!counts || counts.withTls + counts.inClear === 0) return { status: 'unknown', reason: `no mail of this domain was accepted by ${rules.label} in the last 24 h` };
  const accepted = `${count(counts.withTls + counts.inClear, 'message')} accepted by ${rules.label} in the last 24 h`;
  if (counts.inClear > 0) return { status: 'fail', reason: `${counts.inClear} of the ${accepted} went without TLS` };
  return { status: 'pass', reason: `all ${accepted} went over TLS` };
}

function complaintVerdict(rules: ProviderRules, counts: StreamComplaintCounts): RequirementVerdict {
  const base = { requirement: 'complaint_rate' as const, stream: counts.stream };
  if (counts.accepted === 0) return { ...base, status: 'unknown', reason: `no ${counts.stream} mail of the account was accepted in the last 24 h` };
  const rate = counts.complaints / counts.accepted;
  const { keepBelow, neverReach } = rules.complaintRate;
  const measured = `${counts.stream} mail: ${count(counts.complaints, 'complaint')} over ${count(counts.accepted, 'accepted delivery', 'accepted deliveries')} in the last 24 h (${percent(rate)})`;
  if (rate >= neverReach) return { ...base, status: 'fail', reason: `${measured} reaches ${percent(neverReach)}, which ${rules.label} never accepts` };
  if (rate > keepBelow) return { ...base, status: 'fail', reason: `${measured} is above ${percent(keepBelow)}, which ${rules.label} asks to keep below` };
  return { ...base, status: 'pass', reason: `${measured} is within ${percent(keepBelow)}` };
}

/**
 * Judges a domain against each provider's published requirements (PROVIDER_REQUIREMENTS), one
 * verdict per requirement a provider publishes, in COMPLIANCE_REQUIREMENTS order, and one
 * complaint-rate verdict per stream (docs/api-decisions.md, "Mailbox providers' rules").
 */
export function complianceReport(facts: ComplianceFacts): ProviderCompliance[] {
  const shared: Partial<Record<ComplianceRequirement, Omit<RequirementVerdict, 'requirement'>>> = {
    spf_aligned: spfVerdict(facts),
    dkim_aligned: recordVerdict(facts.dkim, 'DKIM', `the DKIM record is published and verified; the service signs with d=${facts.domain} (aligned)`),
    dmarc_published: recordVerdict(facts.dmarc, 'DMARC', `a valid DMARC record (p=none at least) applies to ${facts.domain}`),
    forward_confirmed_reverse_dns: reverseDnsVerdict(facts),
    one_click_unsubscribe: facts.oneClickUnsubscribe
      ? { status: 'pass', reason: 'added by the service to every broadcast message' }
      : { status: 'fail', reason: 'broadcast messages do not carry List-Unsubscribe-Post (RFC 8058)' },
  };
  return MAILBOX_PROVIDERS.map((provider) => {
    const rules = PROVIDER_REQUIREMENTS[provider];
    const requirements = rules.requirements.flatMap((requirement): RequirementVerdict[] => {
      if (requirement === 'complaint_rate') return facts.complaintRates.map((counts) => complaintVerdict(rules, counts));
      if (requirement === 'tls') return [{ requirement, ...tlsVerdict(rules, facts.tls[provider]) }];
      return [{ requirement, ...shared[requirement]! }];
    });
    return { provider, requirements };
  });
}

/** The verdicts that fail, per provider: what a re-check of a ready domain warns about. */
export const failedRequirements = (report: readonly ProviderCompliance[]): { provider: MailboxProvider; verdict: RequirementVerdict }[] =>
  report.flatMap((p) => p.requirements.filter((r) => r.status === 'fail').map((verdict) => ({ provider: p.provider, verdict })));
