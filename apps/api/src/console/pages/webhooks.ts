import { AppError } from '@mailer/domain';
import { findWebhookEndpoint, listWebhookDeliveries, listWebhookEndpoints, redeliverWebhookDelivery } from '@mailer/operations';
import { shownUrl } from '../../routes/webhooks/webhook-target';
import type { ConsoleRoute } from '../console-route';
import { html } from '../html';
import { actionButton, page, table, when } from '../layout';
import { accountPath, requireAccount } from './accounts';
import { LIST_LIMIT } from './domains';

const endpointPath = (accountId: string, endpointId: string) => `${accountPath(accountId)}/webhooks/${encodeURIComponent(endpointId)}`;

const listWebhooksPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/webhooks',
  title: 'Webhooks',
  async handle(c) {
    const account = await requireAccount(c);
    const endpoints = await listWebhookEndpoints(c.deps.db, account.id, undefined, LIST_LIMIT);
    return page(
      c.session,
      `Webhooks of ${account.name}`,
      table(
        `Endpoints (newest ${LIST_LIMIT})`,
        ['Endpoint', 'URL', 'Format', 'Events', 'Status', 'Created'],
        endpoints.map((w) => [html`<a href="${endpointPath(account.id, w.id)}">${w.id}</a>`, shownUrl(c.deps, w), w.format, w.events.join(', '), w.status, when(w.createdAt)]),
        'No webhook endpoints.',
      ),
    );
  },
};

const webhookPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/webhooks/:endpointId',
  title: 'Webhook',
  async handle(c) {
    const account = await requireAccount(c);
    const endpoint = await findWebhookEndpoint(c.deps.db, account.id, c.params.endpointId!);
    if (!endpoint) throw new AppError('webhook_not_found', 'No webhook endpoint with this id exists in this account.');
    const base = endpointPath(account.id, endpoint.id);
    const deliveries = await listWebhookDeliveries(c.deps.db, endpoint.id, undefined, LIST_LIMIT);
    return page(
      c.session,
      `Webhook ${shownUrl(c.deps, endpoint)}`,
      html`<p><a href="${accountPath(account.id)}">${account.name}</a> · <code>${endpoint.id}</code> · ${endpoint.status} · ${endpoint.format} format · ${endpoint.events.join(', ')}</p>
${table(
  `Deliveries (newest ${LIST_LIMIT})`,
  ['Delivery', 'Event', 'Type', 'Status', 'Attempts', 'Last attempt', 'Last answer', 'Next attempt', ''],
  deliveries.map((d) => [
    html`<code>${d.id}</code>`,
    html`<code>${d.eventId}</code>`,
    d.type,
    d.status,
    d.attemptCount,
    when(d.lastAttemptAt),
    d.lastResponseStatus ?? '—',
    when(d.nextAttemptAt),
    actionButton(c.session, `${base}/deliveries/${d.id}/redeliver`, `Redeliver ${d.id}`),
  ]),
  'No deliveries.',
)}`,
    );
  },
};

const redeliverChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
  title: 'Webhook',
  async handle(c) {
    const account = await requireAccount(c);
    const target = { accountId: account.id, endpointId: c.params.endpointId!, deliveryId: c.params.deliveryId! };
    await redeliverWebhookDelivery(c.deps.db, target, c.deps.now());
    c.res.redirect(303, endpointPath(account.id, target.endpointId));
  },
};

export const webhookRoutes: ConsoleRoute[] = [listWebhooksPage, webhookPage, redeliverChange];
