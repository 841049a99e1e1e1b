import {
  resolveHostAddresses,
  resolveMailRoute,
  type AuthenticatedAnswer,
  type AuthenticatedLookups,
  type DnsResolver,
  type HostAddresses,
  type MailRoute,
} from '@mailer/dns';
import type { TlsaRecord } from '@mailer/domain';
import { onAbort } from './abort-listeners';
import type { MtaStsPolicies, MtaStsPolicy } from './mta-sts/mta-sts-policies';

/**
 * Answers kept this long: a busy recipient domain costs one MX and one address lookup per
 * interval instead of per message. Short next to real TTLs (usually minutes to hours), so
 * a changed MX is followed within seconds. Temporary failures are never kept.
 */
export const ROUTE_CACHE_MS = 30_000;
const MAX_ENTRIES = 10_000;
const DEADLINE = { kind: 'temporary', reason: 'deadline_exceeded' } as const;

/** A recipient domain's MTA-STS policy in force, none, or no answer before the caller's deadline. */
export type MtaStsLookup = { kind: 'policy'; policy: MtaStsPolicy } | { kind: 'none' } | typeof DEADLINE;

export interface RouteLookups {
  mailRoute(domain: string, signal?: AbortSignal): Promise<MailRoute>;
  hostAddresses(host: string, signal?: AbortSignal): Promise<HostAddresses>;
  mtaStsPolicy(domain: string, signal?: AbortSignal): Promise<MtaStsLookup>;
  /** MX and TLSA answers with their AD bit, for DANE; null unless DNSSEC_VALIDATING_RESOLVER. */
  authenticated: {
    mx(domain: string, signal?: AbortSignal): Promise<AuthenticatedAnswer<string>>;
    tlsa(host: string, signal?: AbortSignal): Promise<AuthenticatedAnswer<TlsaRecord>>;
  } | null;
}

/**
 * MX and address lookups through the configured resolver, and MTA-STS policies (themselves
 * cached in Redis), cached and shared while in flight.
 */
export function createRouteLookups(dns: DnsResolver, policies: MtaStsPolicies, authenticated: AuthenticatedLookups | null, ttlMs = ROUTE_CACHE_MS): RouteLookups {
  const cached = <T extends { kind: string }>(lookup: (name: string) => Promise<T>, deadline: T) => {
    const entries = new Map<string, { answer: Promise<T>; expires: number }>();
    return (name: string, signal?: AbortSignal): Promise<T> => {
      const now = Date.now();
      const hit = entries.get(name);
      if (hit && hit.expires > now) return hit.answer;
      // Shared by concurrent callers, so it must not be cut short by one caller's signal;
      // the resolver's own timeout bounds it.
      const answer = lookup(name);
      const entry = { answer, expires: now + ttlMs };
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(name, entry);
      answer.then(
        (result) => {
          if (result.kind === 'temporary' && entries.get(name) === entry) entries.delete(name);
        },
        () => entries.delete(name),
      );
      return signal ? raceSignal(answer, signal, deadline) : answer;
    };
  };
  return {
    mailRoute: cached((domain) => resolveMailRoute(dns, domain), DEADLINE as MailRoute),
    hostAddresses: cached((host) => resolveHostAddresses(dns, host), DEADLINE as HostAddresses),
    mtaStsPolicy: cached(
      async (domain): Promise<MtaStsLookup> => {
        const policy = await policies.policyFor(domain);
        return policy ? { kind: 'policy', policy } : { kind: 'none' };
      },
      DEADLINE as MtaStsLookup,
    ),
    authenticated: authenticated && {
      mx: cached((domain) => authenticated.mx(domain), DEADLINE as AuthenticatedAnswer<string>),
      tlsa: cached((host) => authenticated.tlsa(host), DEADLINE as AuthenticatedAnswer<TlsaRecord>),
    },
  };
}

/**
 * The answer, or `deadline` (a temporary failure) as soon as the caller's signal aborts. Every
 * message routed waits on the daemon's one shutdown signal: its listeners go through onAbort.
 */
function raceSignal<T>(answer: Promise<T>, signal: AbortSignal, deadline: T): Promise<T> {
  if (signal.aborted) return Promise.resolve(deadline);
  return new Promise((resolve, reject) => {
    const removeListener = onAbort(signal, () => resolve(deadline));
    answer.then(
      (value) => {
        removeListener();
        resolve(value);
      },
      (error) => {
        removeListener();
        reject(error);
      },
    );
  });
}
