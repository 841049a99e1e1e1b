// The webhook deliveries the daemon claims, sends and records the attempts of.
export { claimWebhookDeliveries, recordWebhookAttempts, type LeasedWebhook, type WebhookAttemptResult } from '@mailer/db';
