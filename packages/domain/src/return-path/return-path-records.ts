import { isIP } from 'node:net';

/** What the return-path SPF record authorizes: an include, addresses, or (neither given) the inbound host's addresses. */
export interface SpfSources {
  spfInclude?: string | undefined;
  outboundIps: readonly string[];
  inboundHost: string;
}

/** The mechanisms the service asks for, in record order. */
function spfMechanisms(sources: SpfSources): string[] {
  const ips = sources.outboundIps.map((ip) => `${isIP(ip.split('/')[0]!) === 6 ? 'ip6' : 'ip4'}:${ip}`);
  const include = sources.spfInclude ? [`include:${sources.spfInclude}`] : [];
  return ips.length + include.length > 0 ? [...ips, ...include] : [`a:${sources.inboundHost}`];
}

/** `v=spf1 <mechanisms> -all`: only the service sends with this host as the envelope domain. */
export const returnPathSpfRecord = (sources: SpfSources): string => ['v=spf1', ...spfMechanisms(sources), '-all'].join(' ');

const isSpf = (value: string) => /^v=spf1(\s|$)/i.test(value.trim());

/**
 * The return-path component from the host's MX and TXT answers (already judged found or
 * missing by the caller): verified when an MX names the inbound host and the one SPF record
 * there (RFC 7208 section 4.5: several make none apply) contains every mechanism the
 * service asks for; the operator may add more.
 */
export function returnPathMatches(mxHosts: readonly string[], txt: readonly string[], sources: SpfSources): boolean {
  const normalize = (host: string) => host.toLowerCase().replace(/\.$/, '');
  if (!mxHosts.some((host) => normalize(host) === normalize(sources.inboundHost))) return false;
  const spf = txt.filter(isSpf);
  if (spf.length !== 1) return false;
  const terms = new Set(spf[0]!.trim().toLowerCase().split(/\s+/));
  return spfMechanisms(sources).every((m) => terms.has(m.toLowerCase()));
}
