import { normalizeMailDomain, parseMailbox } from '../senders/sender-email';

/** A route's pattern read (docs/api-decisions.md, "Inbound mail"): one address, or every address (`*`) of a host. */
export interface RoutePattern {
  /** `support@example.com` or `*@example.com`, the local part in lower case, the host as A-labels. */
  pattern: string;
  /** Null for `*`. */
  localPart: string | null;
  host: string;
}

/**
 * `support@example.com` or `*@example.com`: an address as recipients are (local parts compared
 * without case, the domain as lower-case A-labels), or `*` for every local part. Undefined when it is neither.
 */
export function parseRoutePattern(input: string): RoutePattern | undefined {
  const trimmed = input.trim();
  if (trimmed.startsWith('*@')) {
    const host = normalizeMailDomain(trimmed.slice(2));
    return host ? { pattern: `*@${host}`, localPart: null, host } : undefined;
  }
  const mailbox = parseMailbox(trimmed);
  if (!mailbox) return undefined;
  const localPart = mailbox.local.toLowerCase();
  return { pattern: `${localPart}@${mailbox.domain}`, localPart, host: mailbox.domain };
}

/** A recipient given at RCPT TO, split as routes are matched: the local part in lower case and the host. */
export function routeKey(address: string): { localPart: string; host: string } | undefined {
  const mailbox = parseMailbox(address);
  return mailbox ? { localPart: mailbox.local.toLowerCase(), host: mailbox.domain } : undefined;
}

/** The host a domain receives at: its receiving subdomain, or the domain itself. */
export const receivingHost = (domain: { name: string; receivingSubdomain: string | null }): string => domain.receivingSubdomain ?? domain.name;

/** Whether `host` may be a domain's receiving subdomain: a name below it (`in.example.com` for `example.com`). */
export const isSubdomainOf = (host: string, domainName: string): boolean => host.endsWith(`.${domainName}`) && host.length > domainName.length + 1;
