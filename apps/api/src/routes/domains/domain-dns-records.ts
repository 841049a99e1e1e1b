import type { DomainRow } from '@mailer/db';
import { requiredDnsRecords, type DnsRecordInstruction } from '@mailer/domain';
import { ensureEd25519Key, loadPublishedDkimKeys } from '@mailer/operations';
import type { ApiDependencies } from '../../container';

/**
 * The records the domain publishes now, DKIM keys of every state included; a domain created
 * before Ed25519 gets its Ed25519 key here (ensureEd25519Key).
 */
export async function domainDnsRecords(deps: ApiDependencies, found: DomainRow): Promise<DnsRecordInstruction[]> {
  const domain = await ensureEd25519Key(deps.db, deps.config.encryptionKey, found);
  return requiredDnsRecords(domain, deps.config.returnPath, await loadPublishedDkimKeys(deps.db, domain, deps.now()));
}
