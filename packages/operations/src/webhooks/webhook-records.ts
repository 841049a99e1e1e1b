// The webhook endpoints of an account and the deliveries made to them.
export {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookDeliveryRecord,
  type WebhookEndpoint,
} from '@mailer/db';
