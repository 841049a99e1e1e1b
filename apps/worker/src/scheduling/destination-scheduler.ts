import {
  destinationId,
  destinationKey,
  liftSuspension,
  limitRuleFor,
  matchReplyRule,
  providerDestinationKey,
  providerFor,
  providerLimitRule,
  type DestinationLimitRule,
  type DestinationTuning,
  type Provider,
  type ReplyRule,
  type SmtpReply,
  type TransactionFeedback,
} from '@mailer/domain';
import type { Logger } from '@mailer/logger';
import type { DestinationSnapshot, SharedDestinationLimits, SharedLimits } from '@mailer/queue';
import { onAbort } from '../delivery/abort-listeners';
import { Destination, type ScheduledGroup } from './destination';

export interface DestinationSchedulerOptions {
  /** WORKER_CONCURRENCY: SMTP transactions in flight at once, over all destinations. */
  globalLimit: number;
  /** WORKER_ACTIVE_LIMIT: deliveries held at most before claiming waits. */
  activeLimit: number;
  tuning: DestinationTuning;
  /** DESTINATION_LIMITS: for the destinations of no provider. */
  rules: readonly DestinationLimitRule[];
  /** The providers table (shipped and PROVIDERS_FILE, merged): a provider's domains are one destination. */
  providers: readonly Provider[];
  /** The rules' limits shared with every daemon (absent: each daemon applies them alone). */
  shared?: SharedDestinationLimits;
  /** REPLY_RULES_FILE and the shipped rules: replies that throttle or suspend their destination for a while. */
  replyRules?: readonly ReplyRule[];
  /** Told of every reply rule applied (the metrics count them). */
  onReplyRule?: (rule: ReplyRule) => void;
  /** While true, no transaction starts (the attempt records lag behind, see RecordBacklog); looked at again every PAUSED_LOOK_MS. */
  paused?: () => boolean;
  logger: Logger;
  now?: () => number;
}

/** Room for one message being claimed (see DestinationScheduler#room). */
export interface ClaimRoom {
  /** The claim is over: the message's groups are held, or it had none to hold. Idempotent. */
  release(): void;
}

/**
 * How a destination's transactions use connections. Under a connection count (an operator's
 * `connections`, or a reply rule's) a connection carries one transaction and is closed: an
 * idle pooled one would stay open unseen by the other daemons' count (docs/api-decisions.md,
 * "Scheduling").
 */
function connectionLimits(rule: DestinationLimitRule | undefined, connectionsLimited: boolean): { messagesPerConnection?: number } {
  if (connectionsLimited) return { messagesPerConnection: 1 };
  return rule?.messagesPerConnection !== undefined ? { messagesPerConnection: rule.messagesPerConnection } : {};
}

/** What a destination shares with the other daemons: its operator rule's limits, else its own key (for reply rules). */
const sharedLimitsOf = (destination: Destination): SharedLimits => destination.rule ?? { pattern: destination.key };

/** How often a paused scheduler looks whether it may start transactions again. */
const PAUSED_LOOK_MS = 100;

/** A destination idle this long is forgotten (its learned concurrency with it), unless suspended. */
const IDLE_FORGET_MS = 10 * 60_000;

/**
 * The daemon's delivery work, held in memory per destination instead of in queue order
 * (docs/api-decisions.md, "Scheduling"), as Postfix's queue manager does: claimed groups wait
 * in their destination's queue, and a free transaction slot goes round robin to the next
 * destination that has work and room under its own concurrency, so that a slow, silent,
 * refusing, throttling or backlogged destination holds only its own slots.
 */
export class DestinationScheduler {
  private readonly destinations = new Map<string, Destination>();
  /** Destinations with queued groups; the Map's order is the round-robin turn. */
  private readonly ready = new Map<string, Destination>();
  private readonly running = new Set<Promise<void>>();
  private readonly roomWaiters = new Set<{ resolve: (room: ClaimRoom) => void; reject: (error: Error) => void }>();
  private inFlight = 0;
  /** Deliveries held: queued, in a transaction, or being recorded as skipped. */
  private heldDeliveries = 0;
  /** Messages given room and not yet held (see room). */
  private claiming = 0;
  private stopping = false;
  private wakeTimer?: NodeJS.Timeout;
  private readonly now: () => number;

  constructor(private readonly options: DestinationSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  get held(): number {
    return this.heldDeliveries;
  }

  /**
   * Room for one message's claim, once fewer than WORKER_ACTIVE_LIMIT deliveries are held or
   * being claimed: the message counts as one delivery from then until its groups are held
   * (`ClaimRoom.release`), so that claims under way at once do not take the daemon past the
   * limit together (each may still take it past by its message's other recipients). Rejects
   * when the scheduler stops or `signal` aborts first.
   */
  room(signal: AbortSignal): Promise<ClaimRoom> {
    if (this.stopping) return Promise.reject(new Error('shutdown'));
    if (this.hasRoom()) return Promise.resolve(this.reserve());
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (room: ClaimRoom) => {
          stopListening();
          resolve(room);
        },
        reject: (error: Error) => {
          stopListening();
          reject(error);
        },
      };
      // The messages of every job taken may wait here at once, on the daemon's one shutdown signal.
      const stopListening = onAbort(signal, () => {
        this.roomWaiters.delete(waiter);
        reject(signal.reason as Error);
      });
      this.roomWaiters.add(waiter);
    });
  }

  /** Holds a group for the destination of `hosts` (its recipient domain's MX hosts, in MX order). */
  hold(hosts: readonly string[], group: ScheduledGroup): void {
    if (this.stopping) {
      this.heldDeliveries += group.deliveries;
      void this.track(group.release('shutdown'), group);
      return;
    }
    // A provider's domains are one destination under its limits, whatever their MX sets; other
    // domains' destination is their MX host set under the first operator rule matching it
    // (docs/api-decisions.md, "Providers and egress pools").
    const provider = providerFor(this.options.providers, hosts);
    const key = provider ? providerDestinationKey(provider) : destinationKey(hosts);
    let destination = this.destinations.get(key);
    if (!destination) {
      const rule = provider ? providerLimitRule(provider) : limitRuleFor(this.options.rules, hosts);
      destination = new Destination(key, rule, provider?.name ?? null, this.options.tuning, this.now());
      this.destinations.set(key, destination);
    }
    destination.push(group, hosts);
    this.heldDeliveries += group.deliveries;
    if (!this.ready.has(key)) this.ready.set(key, destination);
    this.pump();
  }

  /**
   * A reply from the destination of `hosts` (docs/api-decisions.md, "Reply rules"): the first
   * reply rule it matches puts its action in force on the destination for the rule's duration,
   * here at once and for every daemon through the shared limits; the action replaces the one in
   * force. Each application is logged and counted.
   */
  observeReply(hosts: readonly string[], reply: SmtpReply): void {
    const rule = matchReplyRule(this.options.replyRules ?? [], reply);
    const destination = rule && this.destinations.get(destinationKey(hosts));
    if (!rule || !destination) return;
    const until = this.now() + rule.durationMs;
    destination.replyAction = { action: rule.action, until };
    this.options.logger.warn('reply rule applied', {
      rule: rule.name,
      action: rule.action,
      destination: destination.key,
      until: new Date(until).toISOString(),
      reply_code: reply.code,
      reply_enhanced_status: reply.enhancedStatus,
    });
    this.options.onReplyRule?.(rule);
    void this.options.shared?.throttle(sharedLimitsOf(destination), rule.action, rule.durationMs);
  }

  /** What each destination holds now, for the listing and the metrics. */
  snapshot(): DestinationSnapshot[] {
    const now = this.now();
    const snapshots: DestinationSnapshot[] = [];
    for (const [key, d] of this.destinations) {
      const suspended = d.suspended(now);
      if (!d.queued && d.inFlight === 0 && !suspended && now - d.lastActive > IDLE_FORGET_MS) {
        this.destinations.delete(key);
        continue;
      }
      snapshots.push({
        destination: key,
        // A provider's name is no host of a recipient's: it may be a metric label as it is.
        id: d.provider ?? destinationId(key),
        provider: d.provider,
        mxHosts: [...d.hosts],
        domains: [...d.domains],
        held: d.held + d.inFlightDeliveries,
        inFlight: d.inFlight,
        concurrency: d.cap(this.options.globalLimit, now),
        suspendedUntil: suspended ? new Date(d.suspendedUntil(now)!).toISOString() : null,
      });
    }
    return snapshots;
  }

  /**
   * An operator's lift of a suspension (`destination lift`, docs/api-decisions.md, "Queue
   * operations"): the destination is tried again at once. False when it is not suspended here.
   */
  liftSuspension(key: string): boolean {
    const destination = this.destinations.get(key);
    if (!destination?.suspended(this.now())) return false;
    destination.state = liftSuspension(destination.state);
    this.options.logger.info('destination suspension lifted', { destination: key });
    this.pump();
    return true;
  }

  /** Takes work again after a stop (a daemon started anew in the same process). */
  start(): void {
    this.stopping = false;
  }

  /**
   * Stops dispatching: queued groups are released (their leases given back, no attempt
   * counted) and claimers waiting for room are refused; resolves once the transactions in
   * flight have ended (the shutdown signal cuts them at the grace period).
   */
  async stop(): Promise<void> {
    if (this.stopping) {
      while (this.running.size > 0) await Promise.all([...this.running]);
      return;
    }
    this.stopping = true;
    clearTimeout(this.wakeTimer);
    for (const waiter of this.roomWaiters) waiter.reject(new Error('shutdown'));
    this.roomWaiters.clear();
    const released = [...this.destinations.values()].flatMap((d) => d.drain()).map((g) => this.track(g.release('shutdown'), g));
    this.ready.clear();
    await Promise.all(released);
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /**
   * Starts transactions while slots are free: each pass gives one slot to each ready
   * destination in turn that is below its cap and not refused by a shared limit; a suspended
   * destination's groups are all recorded as skipped at once.
   */
  private pump(): void {
    if (this.stopping) return;
    const now = this.now();
    if (this.ready.size > 0 && this.options.paused?.()) {
      clearTimeout(this.wakeTimer);
      this.wakeTimer = setTimeout(() => this.pump(), PAUSED_LOOK_MS);
      this.wakeTimer.unref();
      return;
    }
    let started = true;
    let wakeAt = Infinity;
    while (started && this.ready.size > 0) {
      started = false;
      for (const [key, destination] of [...this.ready]) {
        if (destination.suspended(now)) {
          this.ready.delete(key);
          const cause = destination.skipCause(now);
          for (const group of destination.drain()) this.track(group.skip(cause), group);
          continue;
        }
        if (this.inFlight >= this.options.globalLimit) return;
        if (destination.blockedUntil > now) {
          wakeAt = Math.min(wakeAt, destination.blockedUntil);
          continue;
        }
        if (destination.inFlight >= destination.cap(this.options.globalLimit, now)) continue;
        const group = destination.take()!;
        this.ready.delete(key);
        if (destination.queued) this.ready.set(key, destination);
        this.dispatch(destination, group);
        started = true;
      }
    }
    if (wakeAt < Infinity) {
      clearTimeout(this.wakeTimer);
      this.wakeTimer = setTimeout(() => this.pump(), Math.max(1, wakeAt - now));
      this.wakeTimer.unref();
    }
  }

  private dispatch(destination: Destination, group: ScheduledGroup): void {
    this.inFlight++;
    destination.inFlight++;
    destination.inFlightDeliveries += group.deliveries;
    const work = (async () => {
      const rule = destination.rule;
      let release = () => undefined as void;
      let connectionsLimited = rule?.connections !== undefined;
      if (this.options.shared) {
        const grant = await this.options.shared.acquire(sharedLimitsOf(destination));
        if (!grant.granted) {
          // Another daemon's reply rule suspended it: this daemon's groups are skipped as its own would be.
          if (grant.suspended) destination.replyAction = { action: { kind: 'suspend' }, until: this.now() + grant.retryInMs };
          else destination.blockedUntil = this.now() + grant.retryInMs;
          destination.putBack(group);
          if (!this.ready.has(destination.key)) this.ready.set(destination.key, destination);
          return;
        }
        release = grant.release;
        connectionsLimited = grant.connectionsLimited;
      }
      let feedback: TransactionFeedback = 'neutral';
      try {
        feedback = await group.run({ ...connectionLimits(rule, connectionsLimited), provider: destination.provider });
      } catch (error) {
        this.options.logger.error('scheduled transaction failed', { destination: destination.key, error: (error as Error).message });
      } finally {
        release();
        this.heldDeliveries -= group.deliveries;
      }
      const wasSuspended = destination.suspended(this.now());
      destination.feedback(feedback, this.now());
      if (!wasSuspended && destination.suspended(this.now())) {
        this.options.logger.warn('destination suspended', { destination: destination.key, until: new Date(destination.state.suspendedUntil!).toISOString() });
      }
    })();
    const tracked = work.catch(() => undefined).finally(() => {
      this.inFlight--;
      destination.inFlight--;
      destination.inFlightDeliveries -= group.deliveries;
      this.running.delete(tracked);
      this.afterChange();
    });
    this.running.add(tracked);
  }

  /** Follows a skip or release until it is recorded, then gives its deliveries' room back. */
  private track(work: Promise<void>, group: ScheduledGroup): Promise<void> {
    const tracked = work.catch(() => undefined).finally(() => {
      this.heldDeliveries -= group.deliveries;
      this.running.delete(tracked);
      this.afterChange();
    });
    this.running.add(tracked);
    return tracked;
  }

  private hasRoom(): boolean {
    return this.heldDeliveries + this.claiming < this.options.activeLimit;
  }

  private reserve(): ClaimRoom {
    this.claiming++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.claiming--;
        // Only waiting claimers can use the room: what is dispatchable did not change.
        this.admitWaiters();
      },
    };
  }

  /** Waiting claimers get room one at a time, each counted before the next is looked at. */
  private admitWaiters(): void {
    for (const waiter of this.roomWaiters) {
      if (!this.hasRoom()) break;
      this.roomWaiters.delete(waiter);
      waiter.resolve(this.reserve());
    }
  }

  private afterChange(): void {
    this.admitWaiters();
    this.pump();
  }
}
