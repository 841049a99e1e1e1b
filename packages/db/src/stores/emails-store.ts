import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../database';
import { domains } from '../schema/domains';
import { senders } from '../schema/senders';
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
export async function findSendingIdentities(db: DbOrTx, accountId: string, emailKeys: string[]): Promise<SendingIdentity[]> {
  if (emailKeys.length === 0) return [];
  return db
    .select({
      senderId: senders.id,
      emailKey: senders.emailKey,
      email: senders.email,
      displayName: senders.displayName,
      configuredState: senders.configuredState,
      domainId: domains.id,
      domainName: domains.name,
      ownershipStatus: domains.ownershipStatus,
      dkimStatus: domains.dkimStatus,
      dmarcStatus: domains.dmarcStatus,
    })
    .from(senders)
    .innerJoin(domains, eq(domains.id, senders.domainId))
    .where(and(eq(senders.accountId, accountId), inArray(senders.emailKey, emailKeys), isNull(senders.deletedAt), isNull(domains.deletedAt)));
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
