export { MailerClient, MailerApiError, type MailerClientOptions, type OperationId, type Input, type Result, type ErrorBody } from './client';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './webhooks';
export type { components, operations, paths } from './schema';
