import type { EmailType } from '@mailer/domain';
import type { Database, Row } from '../database';
import type { DomainRow } from './domains-store';

/** What intake needs to know of the sender a `from` address names. */
export interface SendingIdentity {
  senderId: string;
  emailKey: string;
  email: string;
  displayName: string | null;
  configuredState: 'enabled' | 'disabled';
  domainId: string;
  domainName: string;
  ownershipStatus: DomainRow['ownershipStatus'];
  dkimStatus: DomainRow['dkimStatus'];
  dmarcStatus: DomainRow['dmarcStatus'];
  /** The domain's opens and clicks, for messages whose `track` leaves them to it (docs/api-decisions.md, "Opens and clicks"). */
  tracking: { opens: boolean; clicks: boolean };
}

/** The account's active (not deleted) senders with these lower-cased addresses, with their domains' states. */
export function sendingIdentitiesStatement(db: Database, accountId: string, emailKeys: string[]) {
  return db`
    select s.id as sender_id, s.email_key, s.email, s.display_name, s.configured_state,
           d.id as domain_id, d.name as domain_name, d.ownership_status, d.dkim_status, d.dmarc_status, d.tracking_opens, d.tracking_clicks
    from senders s join domains d on d.id = s.domain_id
    where s.account_id = ${accountId} and s.email_key = any(${emailKeys}::text[])
      and s.deleted_at is null and d.deleted_at is null`;
}

export const sendingIdentitiesFrom = (rows: readonly Row[]): SendingIdentity[] =>
  rows.map((r) => ({
    senderId: r.sender_id,
    emailKey: r.email_key,
    email: r.email,
    displayName: r.display_name,
    configuredState: r.configured_state,
    domainId: r.domain_id,
    domainName: r.domain_name,
    ownershipStatus: r.ownership_status,
    dkimStatus: r.dkim_status,
    dmarcStatus: r.dmarc_status,
    tracking: { opens: r.tracking_opens, clicks: r.tracking_clicks },
  }));

export async function findSendingIdentities(db: Database, accountId: string, emailKeys: string[]): Promise<SendingIdentity[]> {
  return sendingIdentitiesFrom(await sendingIdentitiesStatement(db, accountId, emailKeys));
}

export interface AcceptedEmail {
  id: string;
  accountId: string;
  senderId: string;
  domainId: string;
  fromEmail: string;
  fromName: string | null;
  type: EmailType;
  subject: string;
  to: string[];
  cc: string[];
  bccCount: number;
  text: string | null;
  html: string | null;
  messageIdHeader: string;
  replyTo: string[];
  /** Display names of to, cc and reply_to addresses, by address (docs/api-decisions.md, "Emails"). */
  displayNames: Record<string, string>;
  headers: { name: string; value: string }[];
  tags: Record<string, string>;
  scheduledAt: Date | null;
  /** The template version it was rendered from (docs/api-decisions.md, "Templates"); absent or null when none. */
  template?: { id: string; version: number } | null;
  /** Sent with the test key: simulated, counting no usage (docs/api-decisions.md, "Test mode"). */
  test: boolean;
  /** Each delivery carries the List-Unsubscribe headers, as a broadcast message's do (docs/api-decisions.md, "Unsubscribe"). */
  unsubscribe: boolean;
  /**
   * Opens and clicks of the message (docs/api-decisions.md, "Opens and clicks"): its own `track`,
   * else its domain's at acceptance; never for a test message. With clicks, `trackedLinks` are
   * the HTML part's links (trackedLinks), kept after the body is dropped so that a click token's
   * link index still names its URL; null otherwise.
   */
  track: { opens: boolean; clicks: boolean };
  trackedLinks: string[] | null;
  /** When its deliveries are first owed an attempt: the scheduled instant, or acceptance. */
  dueAt: Date;
  /** `suppressed`: on the account's suppression list, so its delivery is created failed and never attempted. */
  recipients: { id: string; address: string; domain: string; kind: 'to' | 'cc' | 'bcc'; suppressed: boolean }[];
  attachments: { filename: string; contentType: string; contentId: string | null; content: Buffer }[];
}
