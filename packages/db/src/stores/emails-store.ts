import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../database';
import { jsonb } from './jsonb';
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
}

/** The account's active (not deleted) senders with these lower-cased addresses, with their domains' states. */
export function sendingIdentitiesStatement(accountId: string, emailKeys: string[]): SQL {
  return sql`
    select s.id as "senderId", s.email_key as "emailKey", s.email, s.display_name as "displayName",
           s.configured_state as "configuredState", d.id as "domainId", d.name as "domainName",
           d.ownership_status as "ownershipStatus", d.dkim_status as "dkimStatus", d.dmarc_status as "dmarcStatus"
    from senders s join domains d on d.id = s.domain_id
    where s.account_id = ${accountId} and s.email_key = any(array(select jsonb_array_elements_text(${jsonb(emailKeys)})))
      and s.deleted_at is null and d.deleted_at is null`;
}

export const sendingIdentitiesFrom = (result: { rows: unknown[] }) => result.rows as SendingIdentity[];

export async function findSendingIdentities(db: DbOrTx, accountId: string, emailKeys: string[]): Promise<SendingIdentity[]> {
  return sendingIdentitiesFrom(await db.execute(sendingIdentitiesStatement(accountId, emailKeys)));
}

export interface AcceptedEmail {
  id: string;
  accountId: string;
  senderId: string;
  domainId: string;
  fromEmail: string;
  fromName: string | null;
  type: string;
  subject: string;
  to: string[];
  cc: string[];
  bccCount: number;
  text: string | null;
  html: string | null;
  messageIdHeader: string;
  recipients: { id: string; address: string; domain: string; kind: 'to' | 'cc' | 'bcc' }[];
  attachments: { filename: string; contentType: string; contentId: string | null; content: Buffer }[];
}
