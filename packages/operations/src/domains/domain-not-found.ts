import { AppError } from '@mailer/domain';

/** 404 domain_not_found, for a malformed, unknown, deleted or foreign domain id alike. */
export const domainNotFound = () => new AppError('domain_not_found', 'No domain with this id exists in this account.');
