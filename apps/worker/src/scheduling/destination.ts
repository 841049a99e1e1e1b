import {
  afterTransaction,
  initialDestinationState,
  isSuspended,
  type CauseCode,
  type DestinationLimitRule,
  type ReplyAction,
  type DestinationState,
  type DestinationTuning,
  type TransactionFeedback,
} from '@mailer/domain';

/** What the destination sets for one transaction. */
export interface TransactionLimits {
  /** The operator's or provider's messages per connection (1 under a connections limit). */
  messagesPerConnection?: number;
  /** The destination's provider, whose warm-up allowances the egress address must have room in; null for none. */
  provider: string | null;
}

/** One recipient domain's deliveries of one message, held until their destination has room for the transaction. */
export interface ScheduledGroup {
  accountId: string;
  domain: string;
  /** Leased deliveries it holds (its recipients). */
  deliveries: number;
  /** Runs the SMTP transaction; resolves with what it tells about the destination once it has ended (its record may still be under way), never rejects. */
  run(limits: TransactionLimits): Promise<TransactionFeedback>;
  /** The destination is suspended: the group is recorded deferred with `cause` without a connection; never rejects. */
  skip(cause: CauseCode): Promise<void>;
  /** Given back unattempted (shutdown); never rejects. */
  release(reason: string): Promise<void>;
}

/** Recipient domains (and MX hosts) a destination remembers for the listing. */
const DOMAINS_KEPT = 20;

/**
 * A destination (an MX host set, or a provider's domains): its groups in one queue per account, served round robin so
 * that one account's backlog takes only its share; its adaptive concurrency and suspension
 * (destination-feedback in @mailer/domain); and the operator rule matching its hosts.
 */
export class Destination {
  state: DestinationState;
  inFlight = 0;
  /** Deliveries of the groups in flight. */
  inFlightDeliveries = 0;
  /** Deliveries queued (not yet in a transaction). */
  held = 0;
  /** Epoch ms before which a shared (Redis) limit refused it. */
  blockedUntil = 0;
  /** A reply rule's action in force, until epoch ms (docs/api-decisions.md, "Reply rules"). */
  replyAction?: { action: ReplyAction; until: number };
  lastActive: number;
  readonly domains = new Set<string>();
  /** MX hosts seen for it (a provider's vary by domain), for the listing. */
  readonly hosts = new Set<string>();
  /** Account → its groups, first come first served; the Map's order is the round-robin turn. */
  private readonly queues = new Map<string, ScheduledGroup[]>();

  constructor(
    readonly key: string,
    readonly rule: DestinationLimitRule | undefined,
    /** The provider it is, or null for an MX host set of no provider. */
    readonly provider: string | null,
    private readonly tuning: DestinationTuning,
    now: number,
  ) {
    this.state = initialDestinationState(tuning);
    this.lastActive = now;
  }

  get queued(): boolean {
    return this.queues.size > 0;
  }

  push(group: ScheduledGroup, hosts: readonly string[]): void {
    for (const host of hosts) if (!this.hosts.has(host) && this.hosts.size < DOMAINS_KEPT) this.hosts.add(host.toLowerCase());
    const queue = this.queues.get(group.accountId);
    if (queue) queue.push(group);
    else this.queues.set(group.accountId, [group]);
    this.held += group.deliveries;
    if (!this.domains.has(group.domain) && this.domains.size < DOMAINS_KEPT) this.domains.add(group.domain);
  }

  /** Puts a group taken but not run back at the head of its account's queue (its turn is kept). */
  putBack(group: ScheduledGroup): void {
    this.held += group.deliveries;
    const queue = this.queues.get(group.accountId);
    if (queue) queue.unshift(group);
    else this.queues.set(group.accountId, [group]);
  }

  /** The next account's oldest group; that account then goes to the back of the turn. */
  take(): ScheduledGroup | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [account, queue] = next.value;
    const group = queue.shift()!;
    this.held -= group.deliveries;
    this.queues.delete(account);
    if (queue.length > 0) this.queues.set(account, queue);
    return group;
  }

  /** Every queued group, taken out. */
  drain(): ScheduledGroup[] {
    const groups = [...this.queues.values()].flat();
    this.queues.clear();
    this.held = 0;
    return groups;
  }

  /** The reply rule's action in force now, if any. */
  private replyActionAt(now: number): ReplyAction | undefined {
    return this.replyAction && this.replyAction.until > now ? this.replyAction.action : undefined;
  }

  /** Suspended after connection failures, or by a reply rule. */
  suspended(now: number): boolean {
    return isSuspended(this.state, now) || this.replyActionAt(now)?.kind === 'suspend';
  }

  /** Until when it is suspended (epoch ms), or null. */
  suspendedUntil(now: number): number | null {
    const byReply = this.replyActionAt(now)?.kind === 'suspend' ? this.replyAction!.until : null;
    const byFailures = isSuspended(this.state, now) ? this.state.suspendedUntil : null;
    return byReply === null ? byFailures : Math.max(byReply, byFailures ?? 0);
  }

  /** What a group skipped while it is suspended is deferred for: the receiver's throttling, or the failed connections. */
  skipCause(now: number): CauseCode {
    return this.replyActionAt(now)?.kind === 'suspend' ? 'rate_limited_by_recipient' : 'connection_failed';
  }

  /**
   * Transactions it may have in flight now: its adaptive concurrency, within the operator's
   * `connections` and a reply rule's, and never every slot of the daemon (`globalLimit`), so
   * that other destinations always find one.
   */
  cap(globalLimit: number, now: number): number {
    const action = this.replyActionAt(now);
    const byReply = action?.kind === 'concurrency' ? action.connections : Infinity;
    return Math.min(this.state.concurrency, this.rule?.connections ?? Infinity, byReply, Math.max(1, globalLimit - 1));
  }

  feedback(feedback: TransactionFeedback, now: number): void {
    this.state = afterTransaction(this.state, feedback, this.tuning, now);
    this.lastActive = now;
  }
}
