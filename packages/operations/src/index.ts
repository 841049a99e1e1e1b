export { checkDomainDns } from './domains/check-domain-dns';
export { serializeDomain, domainSchema, type DomainRepresentation } from './domains/domain-representation';
export { timestampSchema } from './timestamp';
