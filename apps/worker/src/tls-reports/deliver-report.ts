import { readFileSync } from 'node:fs';
import type { DKIMSignOptions, DKIMSignResult } from 'mailauth';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import MimeNode from 'nodemailer/lib/mime-node';
import type { Config } from '@mailer/config';
import { deliverToHosts, routeDomain, type TransportContext } from '../delivery/smtp-transport';
import { requestReceiver } from '../delivery/receiver-https';
import type { TlsReportContent } from './report-content';

/** Bounds of one report's delivery to one address. */
const REPORT_TIMEOUT_MS = 60_000;
const ANSWER_MAX_BYTES = 64 * 1024;
const REPORT_MEDIA_TYPE = 'application/tlsrpt+gzip';

/** POSTs the gzipped report to an `https:` rua (RFC 8460 section 5.2): a 2xx is delivered. */
export async function postReport(transport: TransportContext, uri: URL, report: TlsReportContent): Promise<string | null> {
  const answer = await requestReceiver(transport.dns, transport.receiverHttps, {
    host: uri.hostname,
    port: Number(uri.port || 443),
    path: `${uri.pathname}${uri.search}`,
    method: 'POST',
    headers: { 'content-type': REPORT_MEDIA_TYPE },
    body: report.gzipped,
    maxBytes: ANSWER_MAX_BYTES,
    signal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
  });
  if ('error' in answer) return answer.error;
  return answer.status >= 200 && answer.status < 300 ? null : `answered ${answer.status}`;
}

/**
 * The report as RFC 8460 section 5.3 mails it: `multipart/report; report-type="tlsrpt"`, a
 * text part, and the gzipped JSON named `<submitter>!<policy domain>!<begin>!<end>!<id>.json.gz`.
 */
export function reportMessage(report: TlsReportContent, from: string, to: string): Promise<Buffer> {
  const begin = Date.parse(`${report.day}T00:00:00Z`) / 1000;
  const end = begin + 86_400;
  const root = new MimeNode('multipart/report; report-type="tlsrpt"');
  root.setHeader({
    From: from,
    To: to,
    Subject: `Report Domain: ${report.policyDomain} Submitter: ${report.organization} Report-ID: <${report.reportId}>`,
    'TLS-Report-Domain': report.policyDomain,
    'TLS-Report-Submitter': report.organization,
    'Message-ID': `<tlsrpt.${report.day}.${report.policyDomain}@${report.organization}>`,
    Date: new Date().toUTCString(),
  });
  root.createChild('text/plain').setContent(`TLS report of ${report.organization} for ${report.policyDomain}, ${report.day} (UTC).\r\n`);
  root
    .createChild(REPORT_MEDIA_TYPE, { filename: `${report.organization}!${report.policyDomain}!${begin}!${end}!${report.day}.json.gz` })
    .setHeader('Content-Disposition', 'attachment')
    .setContent(report.gzipped);
  return root.build();
}

/** The key mailed reports are signed with, for TLSRPT_FROM's domain. */
export interface ReportSigningKey {
  signingDomain: string;
  selector: string;
  privateKey: string;
}

/** Read at boot, so that an unreadable key file stops the daemon rather than a report. */
export function reportSigningKey(config: Config): ReportSigningKey | null {
  const { from, dkim } = config.receiverPolicies.tlsReports;
  if (!from || !dkim) return null;
  return { signingDomain: from.slice(from.lastIndexOf('@') + 1), selector: dkim.selector, privateKey: readFileSync(dkim.keyFile, 'utf8') };
}

/** Prepends the DKIM-Signature of `key` (mailauth's signer: rsa-sha256 or ed25519-sha256 as the key is, relaxed/relaxed). */
async function signReport(message: Buffer, key: ReportSigningKey): Promise<Buffer> {
  // mailauth's signer reads `signatureData`, which its type definitions leave out.
  const options = { signatureData: [key] } as unknown as DKIMSignOptions;
  const { signatures, errors } = (await dkimSign(message, options)) as DKIMSignResult & { errors?: unknown[] };
  if (errors?.length) throw new Error('the TLS report could not be DKIM-signed');
  return Buffer.concat([Buffer.from(signatures), message]);
}

/**
 * Mails the report to a `mailto:` rua through the daemon's own transport: the same MX routing,
 * MTA-STS and DANE as any message, from TLSRPT_FROM, DKIM-signed when a key is configured,
 * opportunistic TLS, one attempt.
 */
export async function mailReport(
  transport: TransportContext,
  sender: { from: string; dkim: ReportSigningKey | null },
  address: string,
  report: TlsReportContent,
): Promise<string | null> {
  const { from } = sender;
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  const signal = AbortSignal.timeout(REPORT_TIMEOUT_MS);
  const route = await routeDomain(transport, domain, signal);
  if (route.kind === 'decided') return `not routed: ${route.outcome.cause?.code ?? route.outcome.outcome}`;
  const built = await reportMessage(report, from, address);
  const message = sender.dkim ? await signReport(built, sender.dkim) : built;
  const sent = await deliverToHosts(transport, route.hosts, { domain, from, recipients: [address], message, policy: 'opportunistic', mtaSts: route.mtaSts, signal });
  const outcome = sent.outcomes.get(address);
  return outcome?.outcome === 'accepted' ? null : `not accepted: ${outcome?.cause?.code ?? 'unknown'}`;
}
