export { createDnsResolver, MAX_CNAME_HOPS, type DnsResolver, type DnsResolverOptions } from './resolver';
export { observeDomainDns, DNS_CHECK_DEADLINE_MS } from './observe-domain-dns';
export type { DnsAnswer } from '@mailer/domain';
export { resolveMailRoute, resolveHostAddresses, type MailRoute, type HostAddresses } from './resolve-mx';
export { createAuthenticatedLookups, type AuthenticatedLookups, type AuthenticatedAnswer } from './authenticated-lookups';
export { createRecordLookup, type RecordLookup } from './record-lookup';
export { observeReverseDns, evaluateSpf } from './sender-checks';
