import { findWebhookEndpoint, type Queryable, type WebhookEndpoint } from '@mailer/operations';
import { AppError, validationError, webhookUrlProblem, type WebhookFormat } from '@mailer/domain';

export const webhookNotFound = () => new AppError('webhook_not_found', 'No webhook with this id exists in this account.');

export async function requireWebhook(db: Queryable, accountId: string, id: string): Promise<WebhookEndpoint> {
  const endpoint = await findWebhookEndpoint(db, accountId, id);
  if (!endpoint) throw webhookNotFound();
  return endpoint;
}

/** 422 unless the URL may be a webhook of this format under this configuration. */
export function assertWebhookUrl(url: string, allowPrivate: boolean, format: WebhookFormat): string {
  const problem = webhookUrlProblem(url, allowPrivate, format);
  if (problem) throw validationError([{ path: 'url', message: problem }]);
  return url;
}
