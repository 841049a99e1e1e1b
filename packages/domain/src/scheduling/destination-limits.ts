import picomatch from 'picomatch';

/**
 * An operator's limits for the destinations whose MX hosts match `pattern` (a glob such as
 * `*.mail.protection.outlook.com`, matched case-insensitively against each MX host name).
 * Every destination matching one rule shares its limits, across all daemon processes
 * (docs/api-decisions.md, "Scheduling").
 */
export interface DestinationLimitRule {
  pattern: string;
  /** SMTP transactions in flight at once. */
  connections?: number;
  /** Messages one connection carries before it is closed. */
  messagesPerConnection?: number;
  /** Messages started per minute (a fixed one-minute window). */
  messagesPerMinute?: number;
}

/** The first rule (in the operator's order) matching any of the destination's MX hosts. */
export function limitRuleFor(rules: readonly DestinationLimitRule[], hosts: readonly string[]): DestinationLimitRule | undefined {
  return rules.find((rule) => {
    const matches = picomatch(rule.pattern, { nocase: true, dot: true });
    return hosts.some((host) => matches(host));
  });
}
