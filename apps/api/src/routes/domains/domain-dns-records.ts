import type { z } from 'zod';
import { isPlaceholderHostName } from '@mailer/config';
import { requiredDnsRecords, type DnsRecordInstruction } from '@mailer/domain';
import { type DomainRow, ensureEd25519Key, loadPublishedDkimKeys } from '@mailer/operations';
import type { ApiDependencies } from '../../container';
import type { domainDnsSchema } from './get-domain-dns.schema';

/**
 * The records the domain publishes now, DKIM keys of every state included; a domain created
 * before Ed25519 gets its Ed25519 key here (ensureEd25519Key).
 */
export async function domainDnsRecords(deps: ApiDependencies, found: DomainRow): Promise<z.infer<typeof domainDnsSchema>> {
  const domain = await ensureEd25519Key(deps.db, deps.config.encryptionKey, found);
  const records: DnsRecordInstruction[] = requiredDnsRecords(domain, deps.config.returnPath, await loadPublishedDkimKeys(deps.db, domain, deps.now()));
  return { records, warnings: placeholderWarnings(deps.config.returnPath.inboundHost) };
}

/**
 * The records name the inbound host (return-path MX, and SPF `a:` without OUTBOUND_IPS); the
 * development default of SMTP_HELO_NAME is a placeholder no DNS host can point at
 * (docs/api-decisions.md, "First run").
 */
function placeholderWarnings(inboundHost: string): z.infer<typeof domainDnsSchema>['warnings'] {
  if (!isPlaceholderHostName(inboundHost)) return [];
  return [
    {
      code: 'placeholder_host',
      message:
        `The return-path records name ${inboundHost}, a development placeholder: the operator sets SMTP_HELO_NAME (or INBOUND_HOST) ` +
        "to the service's fully qualified name before these records are published. Test mode needs none of them.",
    },
  ];
}
