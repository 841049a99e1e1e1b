import { authenticate } from 'mailauth';
import type { InboundAuth } from '@mailer/operations';
import type { RecordLookup } from '@mailer/dns';

/** Who handed the message over: the connecting address, its HELO name and its MAIL FROM. */
export interface SmtpPeer {
  remoteAddress: string;
  helo: string;
  mailFrom: string;
}

/**
 * mailauth reports a signature whose body hash does not match as `neutral`; the message was
 * altered after signing, which RFC 6376 (section 6.1.3) counts as a failed verification: `fail`.
 */
const dkimResult = (status: { result?: string; comment?: string } | undefined) =>
  status?.result === 'neutral' && status.comment === 'body hash did not verify' ? 'fail' : (status?.result ?? 'none');

interface Verdict {
  status?: { result?: string; policy?: string };
}

/**
 * SPF (the connecting address against the MAIL FROM domain, or the HELO name for a null
 * sender), DKIM, DMARC and ARC of a received message with mailauth's `authenticate`
 * (docs/api-decisions.md, "Inbound mail"), its lookups through the configured resolvers.
 * BIMI is not checked: nothing here shows a logo.
 */
export async function authenticateMail(raw: Buffer, peer: SmtpPeer, lookup: RecordLookup, mta: string): Promise<InboundAuth> {
  const result = await authenticate(raw, {
    ip: peer.remoteAddress.replace(/^::ffff:/, ''),
    helo: peer.helo,
    sender: peer.mailFrom,
    mta,
    resolver: lookup as never,
    disableBimi: true,
  });
  // A message without a signature has one result `none` naming no domain: no signature to list.
  const signatures = (result.dkim?.results ?? []).filter((r: { signingDomain?: string }) => r.signingDomain).map((r: { signingDomain?: string; selector?: string; status?: { result?: string; comment?: string } }) => ({
    domain: r.signingDomain ?? null,
    selector: r.selector ?? null,
    result: dkimResult(r.status),
  }));
  const spf = result.spf as (Verdict & { domain?: string }) | false;
  const dmarc = result.dmarc as (Verdict & { domain?: string; policy?: string }) | false;
  const arc = result.arc as Verdict | false;
  return {
    spf: { result: (spf && spf.status?.result) || 'none', domain: (spf && spf.domain) || null },
    dkim: { result: signatures.some((s) => s.result === 'pass') ? 'pass' : (signatures[0]?.result ?? 'none'), signatures },
    dmarc: { result: (dmarc && dmarc.status?.result) || 'none', domain: (dmarc && dmarc.domain) || null, policy: (dmarc && dmarc.policy) || null },
    arc: { result: (arc && arc.status?.result) || 'none' },
  };
}
