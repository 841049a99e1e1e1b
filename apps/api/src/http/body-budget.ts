import { AppError } from '@mailer/domain';

/** The largest request body (docs/api-decisions.md, "Conventions"), decoded: 413 beyond it. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface BodyBudgetLimits {
  /** MAX_BODY_BYTES_IN_FLIGHT: over all requests of the process. */
  total: number;
  /** MAX_BODY_BYTES_PER_ACCOUNT: over one account's requests. */
  perAccount: number;
}

const refusal = (message: string) => new AppError('service_unavailable', message, { retryAfterSeconds: 1 });

/**
 * The request-body bytes the process holds at once, received, buffered and parsed
 * (docs/api-decisions.md "Request bodies"): a body is buffered and parsed whole, so memory
 * grows with the bodies in flight. One account holds at most its share, so that its
 * bodies, slow or many, never leave another account without room.
 */
export class BodyBudget {
  private inFlight = 0;
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly limits: BodyBudgetLimits) {}

  /** The bytes held now, over every request. */
  get held(): number {
    return this.inFlight;
  }

  /** An empty hold for one request's body, charged for `accountId`. */
  open(accountId: string): BodyHold {
    return new BodyHold(this, accountId);
  }

  /** Takes `bytes` more for `accountId`, or throws the 503 that says which bound they do not fit under. */
  take(accountId: string, bytes: number): void {
    const account = this.byAccount.get(accountId) ?? 0;
    if (account + bytes > this.limits.perAccount) {
      throw refusal("This account's request bodies being received at once take its whole share; retry shortly.");
    }
    if (this.inFlight + bytes > this.limits.total) {
      throw refusal('Too many request bodies are being received at once; retry shortly.');
    }
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

/** What one request's body holds of the budget; released whole, once. */
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
