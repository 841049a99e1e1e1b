import { AppError } from '@mailer/domain';
import {
  deleteDomain,
  domainNotFound,
  findDomain,
  findDomainView,
  type Database,
  type Queryable,
  type DomainRow,
  type DomainView,
} from '@mailer/operations';


/** The caller's active domain, or 404 domain_not_found for a malformed, unknown, deleted or foreign id. */
export async function requireDomain(db: Queryable, accountId: string, id: string): Promise<DomainRow> {
  const domain = await findDomain(db, accountId, id);
  if (!domain) throw domainNotFound();
  return domain;
}

/** As requireDomain, with the counts the representation shows. */
export async function requireDomainView(db: Queryable, accountId: string, id: string): Promise<DomainView> {
  const domain = await findDomainView(db, accountId, id);
  if (!domain) throw domainNotFound();
  return domain;
}

/** Deletes the caller's domain, or refuses: 404 domain_not_found, 409 domain_has_active_senders (/v1 and the Resend adapter). */
export async function deleteOrRefuse(db: Database, accountId: string, id: string, now: Date): Promise<void> {
  const result = await deleteDomain(db, accountId, id, now);
  if (result === 'not_found') throw domainNotFound();
  if (result === 'has_active_senders') throw new AppError('domain_has_active_senders', "Delete the domain's active senders first.");
}
