export { checkDomainDns } from './domains/check-domain-dns';
export { serializeDomain, domainSchema, type DomainRepresentation } from './domains/domain-representation';
export { checkEncryptionKey, resealStoredSecrets, UnreadableSecretError } from './secrets/encryption-key';
export { iso, timestampSchema } from './timestamp';
export { serveMetrics, type MetricsSource } from './metrics/serve-metrics';
export { toOperatorEmail } from './emails/operator-email';
export { causeSchema, emailDetailSchema, emailSummarySchema, toEmailDetail, toEmailSummary } from './emails/email-representation';
export { ensureEd25519Key, loadPublishedDkimKeys, newSealedDkimKeys, publishedDkimKeys } from './domains/dkim-keys';
export { startDkimRotation, type DkimRotationStart } from './domains/rotate-dkim-keys';
