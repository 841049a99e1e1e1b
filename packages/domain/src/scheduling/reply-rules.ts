import type { SmtpReply } from '../delivery/classify-smtp-reply';

/**
 * What a reply rule does to the destination that answered (docs/api-decisions.md, "Reply
 * rules"), for the rule's duration: no new connection (`suspend`), at most `connections`
 * transactions at once, or at most `messagesPerMinute` messages a minute, across every daemon.
 */
export type ReplyAction = { kind: 'suspend' } | { kind: 'concurrency'; connections: number } | { kind: 'rate'; messagesPerMinute: number };

/**
 * A receiver's reply that says why it throttles (Gmail's 4.7.28, Yahoo's [TS04], Microsoft's
 * S3150…), and what to do about it. Every condition given must hold: the reply code, the
 * enhanced status, and the pattern (case-insensitive) somewhere in the reply text.
 */
export interface ReplyRule {
  /** Unique: an operator's rule of the same name replaces a shipped one; logs and metrics name it. */
  name: string;
  code?: number;
  enhancedStatus?: string;
  pattern?: RegExp;
  action: ReplyAction;
  durationMs: number;
}

/** The first rule (in order) matching a 4xx or 5xx reply; a success never matches. */
export function matchReplyRule(rules: readonly ReplyRule[], reply: SmtpReply): ReplyRule | undefined {
  if (reply.code < 400) return undefined;
  return rules.find(
    (rule) =>
      (rule.code === undefined || rule.code === reply.code) &&
      (rule.enhancedStatus === undefined || rule.enhancedStatus === reply.enhancedStatus) &&
      (rule.pattern === undefined || rule.pattern.test(reply.text)),
  );
}

/** An operator's entry: a rule, or a shipped rule's name to leave out. */
export type OperatorReplyRule = ReplyRule | { name: string; disabled: true };

/**
 * The rules in force: the operator's first (in their order), each replacing the shipped rule
 * of its name, then the shipped rules the operator neither replaced nor disabled.
 */
export function mergeReplyRules(shipped: readonly ReplyRule[], operator: readonly OperatorReplyRule[]): ReplyRule[] {
  const named = new Set(operator.map((r) => r.name));
  return [...operator.filter((r): r is ReplyRule => !('disabled' in r)), ...shipped.filter((r) => !named.has(r.name))];
}
