export { checkDomainDns } from './domains/check-domain-dns';
