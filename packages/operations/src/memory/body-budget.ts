import { AppError, fitBodyBudget, type BodyBudgetLimits } from '@mailer/domain';

const REFUSALS = {
  account: "This account's bodies being received at once take its whole share; retry shortly.",
  process: 'Too many bodies are being received at once; retry shortly.',
};

/**
 * The body bytes one process holds at once, received, buffered and parsed (docs/api-decisions.md,
 * "Request bodies"): the API's request bodies, the submission listener's message data. A body is
 * held whole, so memory grows with the bodies in flight; whether more fits is the one rule
 * fitBodyBudget, so that one account's bodies, slow or many, never leave another without room.
 */
export class BodyBudget {
  private inFlight = 0;
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly limits: BodyBudgetLimits) {}

  /** The bytes held now, over every body. */
  get held(): number {
    return this.inFlight;
  }

  /** An empty hold for one body, charged for `accountId`. */
  open(accountId: string): BodyHold {
    return new BodyHold(this, accountId);
  }

  /** Takes `bytes` more for `accountId`, or throws the `service_unavailable` (retry in 1 s) that says which bound they do not fit under. */
  take(accountId: string, bytes: number): void {
    const account = this.byAccount.get(accountId) ?? 0;
    const fit = fitBodyBudget(this.limits, { total: this.inFlight, account }, bytes);
    if (fit !== 'fits') throw new AppError('service_unavailable', REFUSALS[fit], { retryAfterSeconds: 1 });
    this.inFlight += bytes;
    this.byAccount.set(accountId, account + bytes);
  }

  give(accountId: string, bytes: number): void {
    this.inFlight -= bytes;
    const left = this.byAccount.get(accountId)! - bytes;
    if (left === 0) this.byAccount.delete(accountId);
    else this.byAccount.set(accountId, left);
  }
}

/** What one body holds of the budget; released whole (again: nothing). */
export class BodyHold {
  private held = 0;

  constructor(
    private readonly budget: BodyBudget,
    private readonly accountId: string,
  ) {}

  take(bytes: number): void {
    this.budget.take(this.accountId, bytes);
    this.held += bytes;
  }

  release(): void {
    if (this.held > 0) this.budget.give(this.accountId, this.held);
    this.held = 0;
  }
}
