import type { ClaimRoom } from './destination-scheduler';

/** A message a job brought, waiting to be claimed. */
export interface QueuedMessage {
  emailId: string;
  /** Its account (empty for a job enqueued without one): the unit of the turn. */
  accountId: string;
  jobId?: string;
}

export interface ClaimQueueOptions {
  /** Messages waiting at most; a job whose messages do not fit waits for room, holding its BullMQ job. */
  capacity: number;
  /** Claims under way at once; the others wait here, where the turn decides which goes next. */
  inFlight: number;
  /** Room for one more claim (the scheduler's WORKER_ACTIVE_LIMIT); rejects once stopping. */
  room(): Promise<ClaimRoom>;
  /** Claims one message in the room given and holds its deliveries; settles when that is over (it never rejects). */
  claim(message: QueuedMessage, room: ClaimRoom): Promise<void>;
}

/**
 * The messages the daemon's jobs brought, waiting for their claim, taken by account in turn
 * (docs/api-decisions.md, "Scheduling", Fairness between accounts): a job hands its messages
 * over and ends, so the daemon reads past one account's backlog in the queue and another
 * account's message is claimed at the next turn, not after the backlog. One first-come queue
 * per account; accounts are served round robin, one message each. A message is taken from its
 * queue only once it has room (WORKER_ACTIVE_LIMIT) and a place among the claims under way, so
 * the turn decides every wait.
 */
export class ClaimQueue {
  /** Each account's waiting messages; the Map's order is the turn. */
  private readonly accounts = new Map<string, QueuedMessage[]>();
  private size = 0;
  private readonly running = new Set<Promise<void>>();
  private pumping = false;
  private stopped = false;
  private readonly spaceWaiters: { count: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly options: ClaimQueueOptions) {}

  get waiting(): number {
    return this.size;
  }

  /**
   * Queues a job's messages; resolves once they are queued (at once while there is room; when
   * empty, any job fits). Rejects once the queue is stopped: the messages were not taken.
   */
  add(messages: readonly QueuedMessage[]): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('shutdown'));
    if (this.fits(messages.length) && this.spaceWaiters.length === 0) {
      this.push(messages);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) =>
      this.spaceWaiters.push({
        count: messages.length,
        resolve: () => {
          this.push(messages);
          resolve();
        },
        reject,
      }),
    );
  }

  /** Resolves once no claim is under way (after stop, once the last one given out is over). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Stops claiming: the messages still waiting are handed back (the caller gives them jobs again). */
  stop(): QueuedMessage[] {
    this.stopped = true;
    for (const waiter of this.spaceWaiters.splice(0)) waiter.reject(new Error('shutdown'));
    const left = [...this.accounts.values()].flat();
    this.accounts.clear();
    this.size = 0;
    return left;
  }

  private fits(count: number): boolean {
    return this.size === 0 || this.size + count <= this.options.capacity;
  }

  private push(messages: readonly QueuedMessage[]): void {
    if (this.stopped) return;
    for (const message of messages) {
      const queue = this.accounts.get(message.accountId);
      if (queue) queue.push(message);
      else this.accounts.set(message.accountId, [message]);
    }
    this.size += messages.length;
    this.pump();
  }

  /** The next account's oldest message; that account then goes to the back of the turn. */
  private next(): QueuedMessage | undefined {
    const first = this.accounts.entries().next();
    if (first.done) return undefined;
    const [account, queue] = first.value;
    const message = queue.shift()!;
    this.accounts.delete(account);
    if (queue.length > 0) this.accounts.set(account, queue);
    this.size--;
    return message;
  }

  private pump(): void {
    this.admitWaitingJobs();
    if (this.pumping) return;
    this.pumping = true;
    void this.dispatch();
  }

  private admitWaitingJobs(): void {
    while (this.spaceWaiters.length > 0 && this.fits(this.spaceWaiters[0]!.count)) this.spaceWaiters.shift()!.resolve();
  }

  /**
   * Gives the next messages in turn their claims, each once it has room, until none waits or
   * no place is free. Its only wait is for room, so nothing can arrive unseen between its
   * last look and its end.
   */
  private async dispatch(): Promise<void> {
    try {
      while (!this.stopped && this.size > 0 && this.running.size < this.options.inFlight) {
        let room: ClaimRoom;
        try {
          room = await this.options.room();
        } catch {
          return;
        }
        const message = this.next();
        if (!message) {
          room.release();
          return;
        }
        const claim: Promise<void> = this.options.claim(message, room).finally(() => {
          this.running.delete(claim);
          this.pump();
        });
        this.running.add(claim);
        this.admitWaitingJobs();
      }
    } finally {
      this.pumping = false;
    }
  }
}
