import type { Mailbox } from '../senders/sender-email';
import { MAX_UNIQUE_RECIPIENTS } from './email-limits';

export type RecipientKind = 'to' | 'cc' | 'bcc';

/** One unique normalized recipient: one delivery and one recipient-email of usage. */
export interface Recipient {
  address: string;
  domain: string;
  kind: RecipientKind;
}

export interface RecipientSet {
  /** Unique recipients, to before cc before bcc, each in request order. */
  recipients: Recipient[];
  /** The unique to and cc addresses as shown back and written in the headers. */
  to: string[];
  cc: string[];
  /** Unique BCC recipients that are not also in to or cc. */
  bccCount: number;
  /** Where the first recipient beyond the limit of 50 is, e.g. `cc[3]`. */
  overLimitAt?: { field: RecipientKind; index: number };
}

/**
 * Collapses to/cc/bcc into unique recipients (docs/api-decisions.md, "Emails"): addresses are
 * compared by their key (domain normalized, local part case-insensitive); a recipient
 * listed under several kinds keeps the first of to, cc, bcc.
 */
export function collectRecipients(lists: Record<RecipientKind, readonly Mailbox[]>): RecipientSet {
  const seen = new Set<string>();
  const set: RecipientSet = { recipients: [], to: [], cc: [], bccCount: 0 };
  for (const kind of ['to', 'cc', 'bcc'] as const) {
    lists[kind].forEach((mailbox, index) => {
      if (seen.has(mailbox.key)) return;
      seen.add(mailbox.key);
      if (seen.size > MAX_UNIQUE_RECIPIENTS) {
        set.overLimitAt ??= { field: kind, index };
        return;
      }
      set.recipients.push({ address: mailbox.address, domain: mailbox.domain, kind });
      if (kind === 'bcc') set.bccCount++;
      else set[kind].push(mailbox.address);
    });
  }
  return set;
}
