import { ACCEPTED, bounced, deferred, type CauseCode, type DeliveryOutcome } from './causes';

/** An SMTP reply split into what classification reads; the text never leaves the worker. */
export interface SmtpReply {
  /** The three-digit reply code (RFC 5321 section 4.2). */
  code: number;
  /** The RFC 3463 enhanced status code (`5.1.1`), when the server sent one. */
  enhancedStatus: string | null;
  text: string;
}

/**
 * Characters of reply text kept (docs/api-decisions.md, "Delivery"): all classification reads
 * and all an operator is shown. Remote text is cut to it before any pattern sees it, so each
 * rule costs at most a few thousand steps whatever the peer sends.
 */
export const REPLY_TEXT_LIMIT = 512;

/** Characters of a raw reply read: room for the `550-5.1.1 ` prefixes of the lines that give the text kept. */
export const REPLY_READ_LIMIT = 4 * REPLY_TEXT_LIMIT;

/**
 * Parses a (possibly multi-line) reply as the SMTP client hands it over, from its first
 * REPLY_READ_LIMIT characters. A reply without a leading three-digit code yields code 0,
 * which classifies as a temporary failure.
 */
export function parseSmtpReply(raw: string): SmtpReply {
  const lines = raw
    .slice(0, REPLY_READ_LIMIT)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const code = Number(/^(\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const texts = lines.map((line) => line.replace(/^\d{3}[ -]?/, ''));
  const enhanced = /^([245])\.(\d{1,3})\.(\d{1,3})(?:\s|$)/.exec(texts[0] ?? '');
  const enhancedStatus = enhanced ? `${enhanced[1]}.${Number(enhanced[2])}.${Number(enhanced[3])}` : null;
  const text = texts.map((t) => (enhancedStatus ? t.replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, '') : t)).join(' ');
  return { code, enhancedStatus, text: text.slice(0, REPLY_TEXT_LIMIT) };
}

interface Rule {
  /** The enhanced status `subject.detail` this rule covers (`1.1` for X.1.1), or `7` for the whole X.7 subject. */
  enhanced?: string[];
  /** Basic reply codes this rule covers (checked after the enhanced-status rules had their turn). */
  codes?: number[];
  /** Well-known reply texts; matched whatever the enhanced status says. Every pattern runs in time linear in the text. */
  text?: RegExp | ((text: string) => boolean);
  /** Only for these reply classes (4 = temporary, 5 = permanent). */
  classes?: number[];
  cause: CauseCode;
}

const NO_SUCH_RECIPIENT = /no such (user|mailbox|recipient)|unknown (user|recipient)/i;
const RECIPIENT_WORD = /(user|recipient|mailbox|address)\b/i;
const UNKNOWN_WORD = /\b(unknown|not found|does not exist|doesn't exist|invalid|unavailable)/i;

/**
 * "No such user", "unknown recipient", or a recipient word followed anywhere later by a word
 * saying it does not exist ("Recipient address rejected: User unknown"). The two words are
 * looked for one after the other from the first recipient word: as one pattern
 * (`recipient.*unknown`) every recipient word would rescan the rest of the text.
 */
function namesUnknownRecipient(text: string): boolean {
  if (NO_SUCH_RECIPIENT.test(text)) return true;
  const recipient = RECIPIENT_WORD.exec(text);
  return recipient !== null && UNKNOWN_WORD.test(text.slice(recipient.index + recipient[0].length));
}

/**
 * First match wins. Texts that name a well-known situation come first (greylisting and
 * rate limits are sent with all sorts of enhanced codes), then the RFC 3463 enhanced
 * status, then basic codes with the texts real servers use, then the reply class.
 */
const RULES: Rule[] = [
  { text: /gr[ae]y[ -]?list/i, classes: [4], cause: 'greylisted' },
  {
    text: /rate limit|rate that prevents|too many (messages|connections|mails)|sending rate|throttl|unusual rate/i,
    cause: 'rate_limited_by_recipient',
  },
  { enhanced: ['7.28', '5.3'], cause: 'rate_limited_by_recipient' },
  { text: /too many recipients/i, cause: 'rate_limited_by_recipient' },
  { enhanced: ['1.10'], cause: 'no_mail_server' },
  { enhanced: ['1.1', '1.2', '1.3', '1.6'], cause: 'recipient_unknown' },
  { enhanced: ['2.1'], cause: 'mailbox_disabled' },
  { enhanced: ['2.2'], cause: 'mailbox_full' },
  { enhanced: ['2.3', '3.4'], cause: 'message_too_large' },
  { enhanced: ['7'], cause: 'message_rejected' },
  { codes: [550, 551, 553], text: namesUnknownRecipient, cause: 'recipient_unknown' },
  { codes: [452, 552], text: /full|quota|storage/i, cause: 'mailbox_full' },
  { codes: [552, 554], text: /too (big|large)|size/i, cause: 'message_too_large' },
  { codes: [550, 554], text: /spam|block|blacklist|policy|reputation|dmarc|spf|dkim|virus/i, cause: 'message_rejected' },
];

function ruleMatches(rule: Rule, reply: SmtpReply, replyClass: number): boolean {
  if (rule.classes && !rule.classes.includes(replyClass)) return false;
  if (rule.enhanced) {
    if (!reply.enhancedStatus) return false;
    const [, subject, detail] = reply.enhancedStatus.split('.');
    if (!rule.enhanced.includes(`${subject}.${detail}`) && !rule.enhanced.includes(`${subject}`)) return false;
  }
  if (rule.codes && !rule.codes.includes(reply.code)) return false;
  if (rule.text && !(typeof rule.text === 'function' ? rule.text(reply.text) : rule.text.test(reply.text))) return false;
  return true;
}

/**
 * The outcome of one SMTP reply for the recipients it applies to (docs/api-decisions.md, "Delivery"):
 * 2xx accepted, 4xx deferred, 5xx bounced; the enhanced status and the rule table refine
 * the cause. The basic code decides the class even when the enhanced status disagrees;
 * anything that is not a 2xx/4xx/5xx reply (or is 503) is an unknown error and so temporary.
 */
export function classifySmtpReply(reply: SmtpReply): DeliveryOutcome {
  const replyClass = Math.floor(reply.code / 100);
  if (replyClass === 2) return ACCEPTED;
  const enhanced = reply.enhancedStatus && reply.enhancedStatus[0] === String(replyClass) ? reply.enhancedStatus : null;
  const normalized = { ...reply, enhancedStatus: enhanced, text: reply.text.slice(0, REPLY_TEXT_LIMIT) };
  const smtpCode = reply.code || null;
  // 503 (bad sequence of commands) says the session was out of step, not that the message was refused.
  if ((replyClass !== 4 && replyClass !== 5) || reply.code === 503) return deferred('remote_temporary_failure', smtpCode, enhanced);
  const rule = RULES.find((r) => ruleMatches(r, normalized, replyClass));
  if (replyClass === 4) return deferred(rule?.cause ?? 'remote_temporary_failure', smtpCode, enhanced);
  return bounced(rule?.cause ?? 'remote_permanent_failure', smtpCode, enhanced);
}
