import {
  bounced,
  classifySmtpReply,
  deferred,
  isDeliverableAddress,
  parseSmtpReply,
  type DeliveryOutcome,
} from '@mailer/domain';
import type { SmtpConnectionPool } from './connection-pool';
import type { SlotLimiter } from './slot-limiter';
import type { RouteLookups } from './route-cache';
import { openSession, SmtpSession, type NodemailerError, type OpenFailure, type SendOutcome, type SessionSettings, type TlsPolicy } from './smtp-session';

export interface TransportContext {
  /** MX and address lookups through the configured resolver (DNS_SERVERS). */
  routes: RouteLookups;
  pool: SmtpConnectionPool;
  limiter: SlotLimiter;
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
  policy: TlsPolicy;
  /** Aborts at the lease deadline or on shutdown. */
  signal: AbortSignal;
}

export interface TransactionReport {
  /** One outcome per recipient. */
  outcomes: Map<string, DeliveryOutcome>;
  tls: boolean;
  /** The MX host talked to (or last tried); operator-only, never shown by the API. */
  mxHost: string | null;
  /** Why the last TLS negotiation of the attempt failed, if one did (it may name the MX host); operator logs only. */
  tlsFailure?: string;
  /** Set when the signal cut the attempt short; after the final dot the message may have arrived. */
  aborted?: { finalDotSent: boolean };
}

const forAll = (recipients: string[], outcome: DeliveryOutcome) => new Map(recipients.map((r) => [r, outcome]));

/**
 * Routes one domain's recipients (docs/api-decisions.md, "Delivery", Routing): MX lookup through the
 * configured resolver, then MX hosts by preference and their addresses in turn until one
 * takes a session; connection-level failures move on to the next address or host within
 * this same attempt. Non-public addresses are skipped unless ALLOW_PRIVATE_MX.
 */
export async function deliverToDomain(ctx: TransportContext, tx: DomainTransaction): Promise<TransactionReport> {
  const report = (outcome: DeliveryOutcome, mxHost: string | null = null): TransactionReport => ({
    outcomes: forAll(tx.recipients, outcome),
    tls: false,
    mxHost,
    ...(tx.signal.aborted ? { aborted: { finalDotSent: false } } : {}),
  });
  const route = await ctx.routes.mailRoute(tx.domain, tx.signal);
  if (tx.signal.aborted) return report(deferred('timeout'));
  switch (route.kind) {
    case 'not_found':
      return report(bounced('recipient_domain_not_found'));
    case 'null_mx':
    case 'no_mail_server':
      return report(bounced('no_mail_server'));
    case 'temporary':
      return report(deferred('dns_temporary_failure'));
  }

  let failure = deferred('connection_failed');
  let lastHost: string | null = null;
  let tlsFailure: string | undefined;
  for (const host of route.hosts) {
    lastHost = host;
    const addresses = await ctx.routes.hostAddresses(host, tx.signal);
    if (tx.signal.aborted) return report(deferred('timeout'), host);
    if (addresses.kind === 'temporary') failure = worse(failure, deferred('dns_temporary_failure'));
    if (addresses.kind !== 'found') continue;
    const usable = addresses.addresses.filter((a) => isDeliverableAddress(a, ctx.allowPrivateMx));
    if (usable.length === 0) continue;

    let release: () => void;
    try {
      release = await ctx.limiter.acquire(host, tx.signal);
    } catch {
      return report(deferred('timeout'), host);
    }
    try {
      for (const address of usable) {
        const transaction = await transact(ctx, { host, address, port: ctx.port, policy: tx.policy }, tx);
        if (!('sent' in transaction)) {
          if (transaction.kind === 'aborted') return report(deferred('timeout'), host);
          if (transaction.kind === 'tls') tlsFailure = transaction.message;
          failure = worse(failure, openFailureOutcome(transaction, tx.policy));
          continue;
        }
        const { session, sent } = transaction;
        // An aborted session was dropped already; put() keeps only usable ones.
        ctx.pool.put(session);
        return {
          outcomes: outcomesFromSend(tx.recipients, sent),
          tls: session.tls,
          mxHost: host,
          ...(session.tlsFailure ? { tlsFailure: session.tlsFailure } : {}),
          ...(sent.kind === 'aborted' ? { aborted: { finalDotSent: sent.finalDotSent } } : {}),
        };
      }
    } finally {
      release();
    }
  }
  return { ...report(failure, lastHost), ...(tlsFailure ? { tlsFailure } : {}) };
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
    pooled.close();
    pooled = ctx.pool.take(target);
  }
  if (pooled) {
    const transaction = await sendOn(pooled);
    if (!staleSession(transaction.sent)) return transaction;
    pooled.close();
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

/** A TLS failure under require_tls is the cause worth reporting whatever else failed. */
function worse(current: DeliveryOutcome, next: DeliveryOutcome): DeliveryOutcome {
  return current.cause?.code === 'tls_required_unavailable' ? current : next;
}

function openFailureOutcome(failure: OpenFailure, policy: TlsPolicy): DeliveryOutcome {
  const reply = failure.reply ? parseSmtpReply(failure.reply) : undefined;
  const codes = [reply?.code || null, reply?.enhancedStatus ?? null] as const;
  if (failure.kind === 'tls' && policy === 'require_tls') return deferred('tls_required_unavailable', ...codes);
  if (failure.kind === 'timeout') return deferred('timeout', ...codes);
  return deferred('connection_failed', ...codes);
}

/**
 * Per-recipient outcomes of one transaction: recipients refused at RCPT keep that reply's
 * outcome; the others share the final-dot reply, or the reply or error that ended the
 * transaction (MAIL FROM refused, DATA refused, connection lost, timeout).
 */
function outcomesFromSend(recipients: string[], sent: SendOutcome): Map<string, DeliveryOutcome> {
  const outcomes = new Map<string, DeliveryOutcome>();
  for (const r of sent.rejected) outcomes.set(r.recipient, replyOutcome(r.reply));
  const rest = sent.kind === 'sent' ? replyOutcome(sent.reply) : sent.kind === 'aborted' ? deferred('timeout') : errorOutcome(sent.error);
  for (const r of recipients) if (!outcomes.has(r)) outcomes.set(r, rest);
  return outcomes;
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
