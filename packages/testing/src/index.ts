export { createTestDatabase, testRedisPrefix, databaseUrl } from './test-database';
export { startTestDnsServer, type TestDnsServer, type DnsRecord, type DnsFailure } from './dns-server';
export { insertReadyDomain, insertSender, type ReadyDomain, type SenderOptions } from './factories';
