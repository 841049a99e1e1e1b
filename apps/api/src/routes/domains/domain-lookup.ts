import { AppError } from '@mailer/domain';
import { findDomain, findDomainView, type Queryable, type DomainRow, type DomainView } from '@mailer/db';

export const domainNotFound = () => new AppError('domain_not_found', 'No domain with this id exists in this account.');

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
