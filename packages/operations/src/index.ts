export { checkDomainDns } from './domains/check-domain-dns';
export { domainCompliance, type ComplianceSources } from './domains/domain-compliance';
export { serializeDomain, domainSchema, type DomainRepresentation } from './domains/domain-representation';
export { checkEncryptionKey, resealStoredSecrets, UnreadableSecretError } from './secrets/encryption-key';
export { iso, timestampSchema } from './timestamp';
export { serveMetrics, type MetricsSource } from './metrics/serve-metrics';
export { toOperatorEmail } from './emails/operator-email';
export { causeSchema, emailDetailSchema, emailSummarySchema, toEmailDetail, toEmailSummary } from './emails/email-representation';
export { ensureEd25519Key, loadPublishedDkimKeys, newSealedDkimKeys, publishedDkimKeys } from './domains/dkim-keys';
export { startDkimRotation, type DkimRotationStart } from './domains/rotate-dkim-keys';
export { sendingSchema, sendingStatusChangedSchema, toSending, type SendingRepresentation } from './accounts/sending-representation';
export { accountSendingState } from './accounts/account-sending-state';
export { evaluateReputation, pauseSending, resumeSending, type DueMessages, type SendingStatusOutcome } from './accounts/change-sending-status';
export { renderTemplateContent } from './templates/render-template-content';
export { acceptEmail, optionalIdempotencyKey, requireIdempotencyKey, type AcceptEmailDependencies, type AcceptEmailInput, type AcceptEmailResult } from './emails/accept-email/accept-email';
export { IntakeBatcher } from './emails/accept-email/intake-batcher';
export { closeIntakeServices, openIntakeServices, type IntakeServices } from './emails/accept-email/intake-services';
export {
  acceptedEmailBatchSchema,
  acceptedEmailSchema,
  MAX_BATCH_MESSAGES,
  scheduledAtSchema,
  sendEmailBatchBodySchema,
  sendEmailBodySchema,
  submittedEmailBodySchema,
} from './emails/accept-email/send-email.schema';
export { listDestinations, type ListedDestination } from './destinations/list-destinations';
export { redeliverWebhookDelivery } from './webhooks/redeliver-webhook-delivery';
export { createDomain } from './domains/create-domain';
export { changeDomainSettings, type DomainSettingsChange } from './domains/change-domain-settings';
export { domainNotFound } from './domains/domain-not-found';
export { addSender } from './senders/add-sender';
export { accountView, accountViewSchema, type AccountView } from './accounts/account-view';
export { logConfigWarnings } from './startup/config-warnings';
export { listenOrExplain, type Listener } from './startup/listen-or-explain';
export { stopListenersOnSignal, type ListenerResources } from './startup/stop-listeners-on-signal';
export { findDestination, resolveQueueSelection, type DestinationSnapshots, type QueueSelectionInput } from './queue/queue-selection';
export { listQueue, QUEUE_LIST_MAX, type ListedQueueDelivery, type QueueListInput } from './queue/list-queue';
export { changeQueue, type QueueChangeDependencies } from './queue/change-queue';
export { setAccountEnabled } from './accounts/disable-account';
export { redeliverWebhook, sendTestWebhook } from './webhooks/operator-webhooks';
export { liftDestination, type DestinationLiftDependencies } from './queue/lift-destination';
export { connectionBackstop, createConnectionLimit, type ConnectionCaps, type ConnectionLimit } from './listeners/connection-limit';
export { BodyBudget, BodyHold } from './memory/body-budget';
export {
  emailReceivedDataSchema,
  inboundEmailSchema,
  inboundEmailSummarySchema,
  inboundRouteSchema,
  toEmailReceivedData,
  toInboundEmail,
  toInboundEmailSummary,
  toInboundRoute,
} from './inbound/inbound-representation';
export * from './database';
export * from './accounts/account-records';
export * from './accounts/account-keys';
export * from './accounts/egress-pools';
export * from './domains/domain-records';
export * from './emails/email-records';
export * from './emails/change-email';
export * from './queue/delivery-counts';
export * from './inbound/inbound-records';
export * from './inbound/inbound-routes';
export * from './inbound/delivery-reports';
export * from './unsubscribe/unsubscribe-delivery';
export * from './tracking/record-engagement';
export * from './senders/sender-records';
export * from './suppressions/suppression-records';
export * from './templates/template-records';
export * from './webhooks/webhook-records';
export * from './delivery/leases';
export * from './delivery/attempt-records';
export * from './delivery/message-contents';
export * from './delivery/owed-deliveries';
export * from './webhooks/webhook-sending';
export * from './tls-reports/tls-report-records';
export * from './domains/domains-due';
export * from './retention/expired-data';
