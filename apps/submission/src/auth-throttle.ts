/** Failed AUTHs from one address within the window that close the listener to it for the same span. */
export const MAX_FAILED_AUTHS = 10;
export const AUTH_THROTTLE_WINDOW_MS = 10 * 60_000;

/**
 * Password guessing against sending keys (docs/api-decisions.md, "SMTP submission"): once an
 * address (a connectionSource: an IPv4 address or an IPv6 /64) has MAX_FAILED_AUTHS failed AUTHs
 * within AUTH_THROTTLE_WINDOW_MS it is refused (`421 4.7.0`) for AUTH_THROTTLE_WINDOW_MS. Counted
 * per listener process: several processes behind one address multiply the bound by their number.
 */
export class AuthThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly blockedUntil = new Map<string, number>();

  constructor(private readonly now: () => Date) {}

  isBlocked(address: string): boolean {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return false;
    if (until > this.now().getTime()) return true;
    this.blockedUntil.delete(address);
    return false;
  }

  recordFailure(address: string): void {
    const now = this.now().getTime();
    const recent = (this.failures.get(address) ?? []).filter((at) => at > now - AUTH_THROTTLE_WINDOW_MS);
    recent.push(now);
    if (recent.length < MAX_FAILED_AUTHS) {
      this.failures.set(address, recent);
      return;
    }
    this.failures.delete(address);
    this.blockedUntil.set(address, now + AUTH_THROTTLE_WINDOW_MS);
  }
}
