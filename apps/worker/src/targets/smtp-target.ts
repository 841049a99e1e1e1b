import { deferred, deriveMessageStatus, envelopeSender, parseSmtpReply, transactionFeedback, type AttemptTransport, type CauseCode, type TransactionFeedback } from '@mailer/domain';
import type { LeasedDelivery } from '@mailer/operations';
import type { EgressChoice } from '../delivery/egress-pools';
import { needsOwnCopies } from '../delivery/per-delivery-content';
import { deliverToHosts, routeDomain, type TransactionReport } from '../delivery/smtp-transport';
import type { MtaStsPolicy } from '../delivery/mta-sts/mta-sts-policies';
import type { ScheduledGroup, TransactionLimits } from '../scheduling/destination';
import type { DeliveryTarget, HeldMessage } from './delivery-target';
import { leaseGate } from './lease-gate';

/**
 * SMTP to the recipients' MX hosts (docs/api-decisions.md, "Delivery" and "Scheduling"):
 * recipients are grouped by domain and each domain routed (a routing failure is recorded at
 * once); each SMTP transaction's group then waits in its destination's queue of the
 * scheduler, which runs it when the destination has room. A group is a recipient domain's
 * deliveries together, or each delivery alone once the domain's return path is verified,
 * since its MAIL FROM then names that one delivery (docs/api-decisions.md, "Return path"),
 * and when the message carries unsubscribe links, which name one delivery each
 * (docs/api-decisions.md, "Unsubscribe").
 */
export const smtpTarget: DeliveryTarget = {
  async deliver(message: HeldMessage): Promise<void> {
    const { deps, context, lease } = message;
    const byDomain = new Map<string, LeasedDelivery[]>();
    for (const d of lease.deliveries) {
      const group = byDomain.get(d.recipientDomain);
      if (group) group.push(d);
      else byDomain.set(d.recipientDomain, [d]);
    }
    const alone = context.domain.returnPathVerified || needsOwnCopies(context.email);
    const transactions = (group: LeasedDelivery[]) => (alone ? group.map((d) => [d]) : [group]);
    message.expect([...byDomain.values()].reduce((sum, group) => sum + transactions(group).length, 0));
    await Promise.all(
      [...byDomain].map(async ([domain, group]) => {
        // Cut short at shutdown; a lease that lapses meanwhile is seen right after (DNS has its own timeout).
        const route = await routeDomain(deps.transport, domain, deps.shutdown.signal);
        const stopped = message.kept.stopped;
        for (const transaction of transactions(group)) {
          if (stopped) void message.track(message.recorder.release(transaction, stopped.message));
          else if (route.kind === 'decided') void message.track(message.decide(transaction, route.outcome));
          else deps.scheduler.hold(route.hosts, new HeldGroup(message, domain, transaction, route.hosts, route.mtaSts));
        }
      }),
    );
  },
};

/** One SMTP transaction's deliveries of a held message, waiting in its destination's queue. */
class HeldGroup implements ScheduledGroup {
  readonly accountId: string;
  readonly deliveries: number;

  constructor(
    private readonly message: HeldMessage,
    readonly domain: string,
    private readonly group: LeasedDelivery[],
    private readonly hosts: readonly string[],
    private readonly mtaSts: MtaStsPolicy | null,
  ) {
    this.accountId = message.context.email.accountId;
    this.deliveries = group.length;
  }

  release(reason: string): Promise<void> {
    return this.message.track(this.message.recorder.release(this.group, reason));
  }

  skip(cause: CauseCode): Promise<void> {
    return this.message.track(this.message.decide(this.group, deferred(cause)));
  }

  async run(limits: TransactionLimits): Promise<TransactionFeedback> {
    const { message, group, domain } = this;
    const { deps, context, kept } = message;
    if (kept.stopped) {
      await this.release(kept.stopped.message);
      return 'neutral';
    }
    let egress: EgressChoice;
    try {
      egress = await deps.egress.choose(context.egressPool, limits.provider, group.length, deps.now());
    } catch (error) {
      // The pool could not be read (the database away): given back unattempted, as at a shutdown.
      message.log.error('egress pool not read', { error: (error as Error).message });
      await this.release('egress pool not read');
      return 'neutral';
    }
    if (egress.kind === 'wait') {
      deps.metrics.warmUpPostponed.inc({ pool: egress.pool, provider: limits.provider ?? 'none' }, group.length);
      await message.track(message.recorder.postpone(group, egress.until));
      return 'neutral';
    }
    let built: Buffer;
    try {
      built = await message.compose(group);
    } catch (error) {
      message.log.error('message could not be built', { error: (error as Error).message });
      await message.track(message.decide(group, deferred('internal_error')));
      return 'neutral';
    }
    const sending = await leaseGate(message, group);
    if (sending.length === 0) return 'neutral';
    const startedAt = deps.now();
    const endTransactionTimer = deps.metrics.transactionSeconds.startTimer();
    const recipients = sending.map((d) => d.recipient);
    // Aborted on shutdown or when the lease lapses; otherwise a transaction is bounded by its
    // own timeouts (DNS, connect, commands, the final dot).
    const signal = kept.signal;
    const report = await deliverToHosts(deps.transport, this.hosts, {
      domain,
      // With a verified return path the group is one delivery, which MAIL FROM names.
      from: envelopeSender({
        senderEmail: context.sender.email,
        domain: context.domain.name,
        returnPathVerified: context.domain.returnPathVerified,
        deliveryId: sending[0]!.id,
        key: deps.returnPathKey,
        label: deps.config.returnPath.label,
      }),
      recipients,
      message: built,
      policy: context.sender.policy,
      mtaSts: this.mtaSts,
      signal,
      ...(limits.messagesPerConnection !== undefined ? { messagesPerConnection: limits.messagesPerConnection } : {}),
      ...(egress.kind === 'source' ? { source: egress.source } : {}),
    });
    endTransactionTimer();
    for (const raw of new Set(report.replies.values())) deps.scheduler.observeReply(this.hosts, parseSmtpReply(raw));
    if (report.tlsPolicy.met !== null) deps.metrics.tlsSessions.inc({ policy: report.tlsPolicy.applied, result: report.tlsPolicy.met ? 'success' : 'failure' });
    // Cut short before the message went out in full: nothing was delivered, so the
    // deliveries go back for the next daemon (after the final dot, the duplicate case:
    // recorded as deferred, if the lease is still ours).
    if (report.aborted && !report.aborted.finalDotSent) {
      await this.release((signal.reason as Error).message);
      return 'neutral';
    }
    const outcomeOf = (d: LeasedDelivery) => report.outcomes.get(d.recipient) ?? deferred('internal_error');
    // Recorded after the destination's slot is given back: the slot bounds transactions
    // to the destination, and a record waits for its batch's round trips to PostgreSQL
    // (docs/api-decisions.md, "Scheduling"). The message's settlement follows the record.
    void message.track(
      message.recorder.record(sending, outcomeOf, {
        startedAt,
        transport: attemptTransport(report, sending),
        tlsFailure: report.tlsFailure,
        ...(egress.kind === 'source' ? { sourceAddress: egress.source.address } : {}),
      }),
    );
    return transactionFeedback({ connected: report.connected, aborted: report.aborted !== undefined, causes: recipients.map((r) => report.outcomes.get(r)?.cause?.code) });
  }
}

/**
 * What the transport saw, for operators: the host and address, the reply that decided the
 * attempt's outcome (the first recipient's whose outcome is the attempt's), its text as
 * parseSmtpReply keeps it (REPLY_TEXT_LIMIT), and the session's TLS under the policy that applied
 * (the sender's, the domain's MTA-STS policy or the stricter of them). None when no host was tried.
 */
function attemptTransport(report: TransactionReport, group: LeasedDelivery[]): AttemptTransport | null {
  if (!report.mxHost) return null;
  const outcomes = group.map((d) => report.outcomes.get(d.recipient)?.outcome ?? 'deferred');
  const outcome = deriveMessageStatus(outcomes);
  const decider = group.find((_, i) => outcomes[i] === outcome);
  const raw = decider && report.replies.get(decider.recipient);
  const reply = raw === undefined ? null : parseSmtpReply(raw);
  return {
    mxHost: report.mxHost,
    mxAddress: report.mxAddress,
    reply: reply && { code: reply.code || null, enhancedStatus: reply.enhancedStatus, text: reply.text },
    tls: report.tls,
    policy: report.tlsPolicy.applied,
    tlsResult: report.tlsPolicy.met === null ? null : (report.tlsPolicy.failure ?? 'success'),
  };
}
