import { isIP } from 'node:net';
import {
  boundMxAttempt,
  bounced,
  classifySmtpReply,
  decideHostTlsPolicy,
  deferred,
  isDeliverableAddress,
  parseSmtpReply,
  tlsFailureType,
  type DeliveryOutcome,
  type TlsFailureType,
  type HostTlsPolicy,
  type TlsPolicyApplied,
  type TransportSecurityPolicy,
} from '@mailer/domain';
import type { DnsResolver, MailRoute } from '@mailer/dns';
import type { SmtpConnectionPool } from './connection-pool';
import { hostDane, type HostDane } from './dane';
import { policyAllowsHost, type MtaStsPolicy } from './mta-sts/mta-sts-policies';
import type { ReceiverHttpsSettings } from './receiver-https';
import type { MtaStsLookup, RouteLookups } from './route-cache';
import {
  openSession,
  SmtpSession,
  type NodemailerError,
  type OpenFailure,
  type SendOutcome,
  type SessionSettings,
  type EgressSource,
  type SessionTls,
} from './smtp-session';

export interface TransportContext {
  /** The configured resolver (DNS_SERVERS). */
  dns: DnsResolver;
  /** MX and address lookups through the configured resolver (DNS_SERVERS), and receivers' policies. */
  routes: RouteLookups;
  /** How hosts that recipient domains name are reached over HTTPS (MTA-STS policy hosts, TLS report endpoints). */
  receiverHttps: ReceiverHttpsSettings;
  pool: SmtpConnectionPool;
  settings: SessionSettings;
  /** SMTP_PORT: the port of every MX. */
  port: number;
  allowPrivateMx: boolean;
}

/** All of one message's recipients at one recipient domain: one SMTP transaction. */
export interface DomainTransaction {
  domain: string;
  from: string;
  recipients: string[];
  /** The signed message, the same bytes for every domain. */
  message: Buffer;
  /** The sender's transport security setting. */
  policy: TransportSecurityPolicy;
  /** The recipient domain's MTA-STS policy in force, from routing; null without one. */
  mtaSts: MtaStsPolicy | null;
  /** Aborts at the lease deadline or on shutdown. */
  signal: AbortSignal;
  /** A connection is closed once it carried this many messages (an operator limit); unbounded when absent. */
  messagesPerConnection?: number;
  /** The egress pool's address to leave from; absent: the machine's own. */
  source?: EgressSource;
}

export interface TransactionReport {
  /** One outcome per recipient. */
  outcomes: Map<string, DeliveryOutcome>;
  /** The remote reply that decided each recipient's outcome, when one did; operator-only. */
  replies: Map<string, string>;
  /** The session's TLS; null when the message went in clear or no session was up. */
  tls: SessionTls | null;
  /** The MX host talked to (or last tried) and the address connected to; operator-only, never shown by the API. */
  mxHost: string | null;
  mxAddress: string | null;
  /** Why the last TLS negotiation of the attempt failed, if one did (it may name the MX host); operator logs only. */
  tlsFailure?: string;
  /** Set when the signal cut the attempt short; after the final dot the message may have arrived. */
  aborted?: { finalDotSent: boolean };
  /** Whether a session was up (for the destination's feedback: false means no address took a connection). */
  connected: boolean;
  /**
   * The TLS policy that applied (of the host that took the session, else of the last one
   * tried), whether the session met it and if not, the RFC 8460 failure type; `met` is null
   * when no TLS negotiation was reached (no host answered), as nothing can be said of the policy then.
   */
  tlsPolicy: { applied: TlsPolicyApplied; met: boolean | null; failure: TlsFailureType | null };
}

const forAll = (recipients: string[], outcome: DeliveryOutcome) => new Map(recipients.map((r) => [r, outcome]));

/**
 * How a recipient domain's mail is routed: MX hosts and the domain's MTA-STS policy, or an
 * outcome for all its recipients at once.
 */
export type RouteDecision = { kind: 'hosts'; hosts: string[]; mtaSts: MtaStsPolicy | null } | { kind: 'decided'; outcome: DeliveryOutcome };

/**
 * The MX lookup through the configured resolver, beside the domain's MTA-STS policy; routing
 * failures decide the domain's recipients at once. A policy in mode `none` is no policy.
 */
export async function routeDomain(ctx: TransportContext, domain: string, signal: AbortSignal): Promise<RouteDecision> {
  const [route, mtaSts]: [MailRoute, MtaStsLookup] = await Promise.all([ctx.routes.mailRoute(domain, signal), ctx.routes.mtaStsPolicy(domain, signal)]);
  if (signal.aborted) return { kind: 'decided', outcome: deferred('timeout') };
  switch (route.kind) {
    case 'not_found':
      return { kind: 'decided', outcome: bounced('recipient_domain_not_found') };
    case 'null_mx':
    case 'no_mail_server':
      return { kind: 'decided', outcome: bounced('no_mail_server') };
    case 'temporary':
      return { kind: 'decided', outcome: deferred('dns_temporary_failure') };
    case 'hosts':
      return { kind: 'hosts', hosts: route.hosts, mtaSts: mtaSts.kind === 'policy' && mtaSts.policy.mode !== 'none' ? mtaSts.policy : null };
  }
}

/**
 * Sends one domain's recipients to its MX hosts (docs/api-decisions.md, "Delivery", Routing,
 * and "Scheduling"): hosts by preference and their addresses in turn until one takes a
 * session, at most 2 hosts and 5 addresses in all (boundMxAttempt); connection-level
 * failures move on to the next address within this same attempt. Non-public addresses are
 * skipped unless ALLOW_PRIVATE_MX. Each host gets the TLS policy decideHostTlsPolicy gives it
 * (docs/api-decisions.md, "Receivers' TLS policies"): under an enforced one, hosts it does not
 * allow are not tried, and a session that cannot meet it carries nothing.
 */
export async function deliverToHosts(ctx: TransportContext, allHosts: readonly string[], tx: DomainTransaction): Promise<TransactionReport> {
  const danes = await Promise.all(allHosts.map(async (host) => [host, await hostDane(ctx.routes, tx.domain, host, tx.signal)] as const));
  const policies = new Map(danes.map(([host, dane]) => [host, { dane, policy: hostPolicy(tx, host, dane) }]));
  const hosts = allHosts.filter((host) => !policies.get(host)!.policy.enforced || policies.get(host)!.policy.hostAllowed);
  let applied = policies.get(allHosts[0] ?? '')?.policy ?? hostPolicy(tx, '', { kind: 'none' });
  let tlsMet: boolean | null = null;
  let tlsFailed: TlsFailureType | null = null;
  const report = (outcome: DeliveryOutcome, mxHost: string | null = null, reply?: string): TransactionReport => ({
    outcomes: forAll(tx.recipients, outcome),
    replies: new Map(reply === undefined ? [] : tx.recipients.map((r) => [r, reply])),
    tls: null,
    mxHost,
    mxAddress: null,
    connected: false,
    tlsPolicy: { applied: applied.applied, met: tlsMet, failure: tlsFailed },
    ...(tx.signal.aborted ? { aborted: { finalDotSent: false } } : {}),
  });
  // Every host excluded by an enforced policy: nothing to connect to.
  if (hosts.length === 0) {
    if (applied.failureCause === 'tls_policy_failed') [tlsMet, tlsFailed] = [false, 'validation-failure'];
    return report(deferred(applied.failureCause ?? 'tls_policy_failed'), allHosts[0] ?? null);
  }
  let failure = deferred('connection_failed');
  const lookups = await Promise.all(hosts.map(async (host) => ({ host, found: await ctx.routes.hostAddresses(host, tx.signal) })));
  if (tx.signal.aborted) return report(deferred('timeout'), hosts[0] ?? null);
  if (lookups.some((l) => l.found.kind === 'temporary')) failure = deferred('dns_temporary_failure');
  const usable = lookups.map(({ host, found }) => ({
    host,
    // From a source address, only MX addresses of its family can be reached.
    addresses: found.kind === 'found' ? found.addresses.filter((a) => isDeliverableAddress(a, ctx.allowPrivateMx) && (!tx.source || isIP(a) === isIP(tx.source.address))) : [],
  }));
  let lastHost: string | null = hosts.at(-1) ?? null;
  let tlsFailure: string | undefined;
  let failureReply: string | undefined;
  for (const { host, address } of boundMxAttempt(usable)) {
    lastHost = host;
    const { dane, policy } = policies.get(host)!;
    applied = policy;
    const transaction = await transact(ctx, sessionTarget(ctx, tx, host, address, policy, dane), tx);
    if (!('sent' in transaction)) {
      if (transaction.kind === 'aborted') return report(deferred('timeout'), host);
      if (transaction.kind === 'tls') {
        tlsFailure = transaction.message;
        tlsMet = false;
        tlsFailed = tlsFailureType(policy, { tls: null, tlsFailure });
      }
      const next = worse(failure, openFailureOutcome(transaction, applied));
      if (next !== failure) failureReply = transaction.reply;
      failure = next;
      continue;
    }
    const { session, sent } = transaction;
    // An aborted session was dropped already; put() keeps only usable ones.
    // A connection closed for a per-connection limit is closed before the transaction ends, so that a
    // limit on connections (which the transaction's end gives back) never counts one still closing.
    if (tx.messagesPerConnection === undefined || session.messagesSent < tx.messagesPerConnection) ctx.pool.put(session);
    else await session.close();
    const decided = outcomesFromSend(tx.recipients, sent);
    return {
      ...decided,
      tls: session.tls,
      mxHost: host,
      mxAddress: address,
      connected: true,
      tlsPolicy: sessionPolicyResult(applied, session),
      ...(session.tlsFailure ? { tlsFailure: session.tlsFailure } : {}),
      ...(sent.kind === 'aborted' ? { aborted: { finalDotSent: sent.finalDotSent } } : {}),
    };
  }
  return { ...report(failure, lastHost, failureReply), ...(tlsFailure ? { tlsFailure } : {}) };
}

/**
 * The transaction at one address, on a pooled session when one is ready, else on a new
 * one. A pooled session can turn out to be closed by the server since its last message
 * (its idle timeout, or a 421 to MAIL FROM for too many messages on one connection): when
 * it fails so, nothing was delivered, and the transaction runs again on a new session
 * within the same attempt (see staleSession).
 */
async function transact(
  ctx: TransportContext,
  target: SmtpSession['target'],
  tx: DomainTransaction,
): Promise<{ session: SmtpSession; sent: SendOutcome } | OpenFailure> {
  const sendOn = async (session: SmtpSession) => ({ session, sent: await session.send(tx.from, tx.recipients, tx.message, tx.signal) });
  let pooled = ctx.pool.take(target);
  while (pooled && !(await pooled.ready())) {
    void pooled.close();
    pooled = ctx.pool.take(target);
  }
  if (pooled) {
    const transaction = await sendOn(pooled);
    if (!staleSession(transaction.sent)) return transaction;
    void pooled.close();
  }
  const session = await openSession(target, ctx.settings, tx.signal);
  return session instanceof SmtpSession ? sendOn(session) : session;
}

/**
 * Whether a pooled session failed as a stale one does, before any recipient was answered:
 * closed without a reply, or a 421 to MAIL FROM, the transaction's first command. A 421 to
 * RCPT TO or later answers this transaction: it ends it (see replyOutcome), and replaying it
 * at once on a new connection would only meet the same answer (receivers count repeated
 * refused RCPTs as a dictionary attack).
 */
function staleSession(sent: SendOutcome): boolean {
  if (sent.kind !== 'failed' || sent.recipientsAnswered || sent.messageStarted) return false;
  const { response, code, command } = sent.error;
  return response ? command === 'MAIL FROM' && isClosing(response) : code === 'ECONNECTION' || code === 'ESOCKET';
}

/** 421: the server is closing the connection (RFC 5321 section 3.8). */
const isClosing = (reply: string) => /^421/.test(reply);

function sessionPolicyResult(policy: HostTlsPolicy, session: SmtpSession): TransactionReport['tlsPolicy'] {
  const failure = tlsFailureType(policy, { tls: session.tls, ...(session.tlsFailure ? { tlsFailure: session.tlsFailure } : {}) });
  return { applied: policy.applied, met: failure === null, failure };
}

/** The TLS demands on one host: the sender's setting, the domain's MTA-STS policy and the host's DANE, as the domain rule weighs them. */
function hostPolicy(tx: DomainTransaction, host: string, dane: HostDane): HostTlsPolicy {
  return decideHostTlsPolicy({
    sender: tx.policy,
    mtaSts: tx.mtaSts && { mode: tx.mtaSts.mode, mxMatches: policyAllowsHost(tx.mtaSts, host) },
    dane: dane.kind === 'none' ? null : dane.kind,
  });
}

/** The session a host's policy asks for: DANE with its TLSA records, else CA-verified TLS when enforced, else opportunistic. */
function sessionTarget(ctx: TransportContext, tx: DomainTransaction, host: string, address: string, policy: HostTlsPolicy, dane: HostDane): SmtpSession['target'] {
  const target = { host, address, port: ctx.port, ...(tx.source ? { source: tx.source } : {}) };
  if (dane.kind === 'secure') return { ...target, policy: 'dane', tlsa: dane.records };
  return { ...target, policy: policy.enforced ? 'require_tls' : 'opportunistic' };
}

/** A TLS failure under an enforced policy is the cause worth reporting whatever else failed. */
function worse(current: DeliveryOutcome, next: DeliveryOutcome): DeliveryOutcome {
  const code = current.cause?.code;
  return code === 'tls_required_unavailable' || code === 'tls_policy_failed' ? current : next;
}

function openFailureOutcome(failure: OpenFailure, policy: HostTlsPolicy): DeliveryOutcome {
  const reply = failure.reply ? parseSmtpReply(failure.reply) : undefined;
  const codes = [reply?.code || null, reply?.enhancedStatus ?? null] as const;
  if (failure.kind === 'tls' && policy.failureCause) return deferred(policy.failureCause, ...codes);
  if (failure.kind === 'timeout') return deferred('timeout', ...codes);
  return deferred('connection_failed', ...codes);
}

/**
 * Per-recipient outcomes of one transaction, with the reply that decided each: recipients
 * refused at RCPT keep that reply's outcome; the others share the final-dot reply, or the
 * reply or error that ended the transaction (MAIL FROM refused, DATA refused, connection
 * lost, timeout).
 */
function outcomesFromSend(recipients: string[], sent: SendOutcome): Pick<TransactionReport, 'outcomes' | 'replies'> {
  const outcomes = new Map<string, DeliveryOutcome>();
  const replies = new Map<string, string>();
  for (const r of sent.rejected) {
    outcomes.set(r.recipient, replyOutcome(r.reply));
    replies.set(r.recipient, r.reply);
  }
  const rest = sent.kind === 'sent' ? replyOutcome(sent.reply) : sent.kind === 'aborted' ? deferred('timeout') : errorOutcome(sent.error);
  const restReply = sent.kind === 'sent' ? sent.reply : sent.kind === 'failed' ? sent.error.response : undefined;
  for (const r of recipients) {
    if (outcomes.has(r)) continue;
    outcomes.set(r, rest);
    if (restReply) replies.set(r, restReply);
  }
  return { outcomes, replies };
}

/**
 * The rule table's outcome of a reply; a 421 (the server closing the connection, which ends
 * the transaction for every recipient not yet refused) defers as `rate_limited_by_recipient`
 * when it is a rate or policy (4.7.x) reply, else as `connection_lost`.
 */
function replyOutcome(reply: string): DeliveryOutcome {
  const parsed = parseSmtpReply(reply);
  const outcome = classifySmtpReply(parsed);
  if (!isClosing(reply) || outcome.cause?.code === 'rate_limited_by_recipient') return outcome;
  const codes = [parsed.code, parsed.enhancedStatus ?? null] as const;
  return parsed.enhancedStatus?.startsWith('4.7.') ? deferred('rate_limited_by_recipient', ...codes) : deferred('connection_lost', ...codes);
}

function errorOutcome(error: NodemailerError): DeliveryOutcome {
  if (error.response && /^\d{3}/.test(error.response)) return replyOutcome(error.response);
  if (error.code === 'ETIMEDOUT') return deferred('timeout');
  // The server announced a SIZE limit the message exceeds; it would refuse it at DATA.
  if (error.code === 'EMESSAGE' && error.command === 'MAIL FROM') return bounced('message_too_large');
  if (error.code === 'ECONNECTION' || error.code === 'ESOCKET' || error.code === 'EPROTOCOL') return deferred('connection_lost');
  return deferred('internal_error');
}
