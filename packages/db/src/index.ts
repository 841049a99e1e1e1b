export { openDatabase, type Database, type DatabaseHandle, type DatabaseOptions, type Queryable, type Row, type Statement } from './database';
export { inTransaction, PLAN_LIFETIME_MS, type NamedStatements, type Transaction, type TransactionOptions } from './transaction';
export { DatabaseStallError, isDatabaseUnavailable, withinStall } from './database-errors';
export { LOCK_LEVELS, lockAccountIntake } from './lock-order';
export { heldBy, lockedMessagesFrom, lockMessages, type DeliveryRow, type LockedMessage } from './deliveries/locked-messages';
export {
  writeTransitions,
  type AttemptRecord,
  type AttemptTransport,
  type MessageAfter,
  type NewDelivery,
  type Observation,
  type Transition,
  type TransitionWrite,
  type WrittenTransitions,
} from './deliveries/transition-writer';
export { migrateDatabase, ensureDatabase, MIGRATIONS_FOLDER } from './migrate';
export * from './stores/accounts-store';
export * from './stores/domains-store';
export * from './stores/dkim-keys-store';
export * from './stores/senders-store';
export { purgeExpired, type RetentionPolicy, type RetentionResult } from './stores/retention-store';
export * from './stores/delivery-store';
export * from './stores/attempts-store';
export * from './stores/idempotency-store';
export * from './stores/usage-store';
export * from './stores/emails-store';
export * from './stores/email-history-store';
export * from './stores/owed-deliveries-store';
export * from './stores/intake-store';
export { findActiveDomainById, countDeliveriesByStatus, makeDeferredDeliveriesDue, owedDeliveriesSummary, owedDeliveriesByRecipientDomain, type OwedDeliveriesSummary } from './stores/operator-store';
export * from './stores/lease-store';
export * from './stores/secrets-store';
export { Batcher, type BatcherOptions } from './batcher';
export * from './stores/suppressions-store';
export * from './stores/webhooks-store';
export * from './stores/templates-store';
export * from './stores/webhook-outbox-store';
export * from './stores/webhook-sending-store';
export * from './stores/cancel-store';
export * from './stores/reschedule-store';
export * from './stores/delivery-reports-store';
export * from './stores/egress-pools-store';
export * from './stores/sending-status-store';
export * from './stores/account-resume-store';
export { createKeyLookup, type KeyLookup } from './stores/api-keys-store';
export { tlsSessionsOfDay, claimTlsReport, settleTlsReport, TLS_REPORT_CLAIM_STALE_MS } from './stores/tls-report-store';
export * from './stores/queue-actions-store';
export * from './stores/queue-listing-store';
export * from './stores/webhook-operator-store';
export type { PagePosition } from './stores/keyset';
export * from './stores/inbound-routes-store';
export * from './stores/inbound-emails-store';
