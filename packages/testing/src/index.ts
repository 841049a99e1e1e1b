export { createTestDatabase, testRedisPrefix, databaseUrl } from './test-database';
export { startTestDnsServer, type TestDnsServer, type DnsRecord, type DnsFailure } from './dns-server';
export { insertReadyDomain, insertSender, insertWebhookEndpoint, type ReadyDomain, type SenderOptions } from './factories';
export { startTestSmtpServer, messageIdOf, TEST_CA_FILE, TEST_MX_CERT_FILE, TransactionGauge, type TestSmtpServer, type TestSmtpServerOptions, type PeerBehavior, type DataBehavior, type ReceivedMessage } from './smtp-server';
export { insertQueuedEmail, type QueuedEmailInput, type QueuedEmail } from './email-factory';
export { freePort } from './free-port';
export { waitUntil } from './wait-until';
export { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
export { endProcess } from './end-process';
export { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
export { startPrivateRedis, SENTINEL_MASTER, type PrivateRedis } from './private-redis';
export {
  startTestPolicyHost,
  startTestReportReceiver,
  mtaStsPolicy,
  POLICY_CA_FILE,
  TLS_REPORT_SCHEMA_FILE,
  type TestPolicyHost,
  type TestReportReceiver,
  type PolicyAnswer,
} from './policy-host';
