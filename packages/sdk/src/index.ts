export {
  MailerClient,
  type CallOptions,
  type Input,
  type ItemOf,
  type ListOperationId,
  type MailerClientOptions,
  type OperationId,
  type Result,
} from './client';
export { MailerApiError, type ErrorBody, type MailerErrorCode } from './errors';
export { API_ERROR_CODES, type ApiErrorCode } from './error-codes';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './webhooks';
export type { components, operations, paths } from './schema';
