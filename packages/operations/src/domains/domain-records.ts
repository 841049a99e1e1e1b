// The sending domains of an account, as the stores keep them.
export {
  deleteDomain,
  findActiveDomainById,
  findDomain,
  findDomainView,
  listDomains,
  type DomainRow,
  type DomainView,
} from '@mailer/db';
