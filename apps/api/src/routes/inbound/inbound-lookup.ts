import {
  findInboundEmail,
  findInboundRoute,
  findWebhookEndpoint,
  type InboundEmail,
  type InboundRoute,
  type Queryable,
} from '@mailer/operations';
import { AppError, validationError } from '@mailer/domain';

export const inboundRouteNotFound = () => new AppError('inbound_route_not_found', 'No inbound route with this id exists in this account.');
export const inboundEmailNotFound = () => new AppError('inbound_email_not_found', 'No received email with this id exists in this account.');

export async function requireInboundRoute(db: Queryable, accountId: string, id: string): Promise<InboundRoute> {
  const route = await findInboundRoute(db, accountId, id);
  if (!route) throw inboundRouteNotFound();
  return route;
}

export async function requireInboundEmail(db: Queryable, accountId: string, id: string): Promise<InboundEmail> {
  const email = await findInboundEmail(db, accountId, id);
  if (!email) throw inboundEmailNotFound();
  return email;
}

/** A route's webhook_id must be an endpoint of the account (422 at `webhook_id` otherwise); null stays null. */
export async function assertRouteWebhook(db: Queryable, accountId: string, webhookId: string | null | undefined): Promise<void> {
  if (webhookId && !(await findWebhookEndpoint(db, accountId, webhookId))) {
    throw validationError([{ path: 'webhook_id', message: 'must be a webhook endpoint of this account' }]);
  }
}
