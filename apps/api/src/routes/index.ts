import type { RouteDefinition } from '../http/route';
import { getHealthz } from './system/get-healthz';
import { getReadyz } from './system/get-readyz';
import { getMetrics } from './system/get-metrics';
import { createGetOpenApi } from './system/get-openapi';
import { getDocs } from './system/get-docs';
import { getDocsScript } from './system/get-docs-script';
import { getUnsubscribePageRoute } from './unsubscribe/get-unsubscribe-page';
import { unsubscribeRoute } from './unsubscribe/unsubscribe';
import { followLinkRoute } from './tracking/follow-link';
import { openPixelRoute } from './tracking/open-pixel';
import { listSendersRoute } from './senders/list-senders';
import { createSenderRoute } from './senders/create-sender';
import { getSenderRoute } from './senders/get-sender';
import { updateSenderRoute } from './senders/update-sender';
import { deleteSenderRoute } from './senders/delete-sender';
import { listDomainsRoute } from './domains/list-domains';
import { createDomainRoute } from './domains/create-domain';
import { getDomainRoute } from './domains/get-domain';
import { updateDomainRoute } from './domains/update-domain';
import { deleteDomainRoute } from './domains/delete-domain';
import { getDomainDnsRoute } from './domains/get-domain-dns';
import { checkDomainDnsRoute } from './domains/check-domain-dns';
import { getDomainComplianceRoute } from './domains/get-domain-compliance';
import { rotateDkimKeysRoute } from './domains/rotate-dkim-keys';
import { sendEmailRoute } from './emails/send-email';
import { sendEmailBatchRoute } from './emails/send-email-batch';
import { cancelEmailRoute } from './emails/cancel-email';
import { rescheduleEmailRoute } from './emails/reschedule-email';
import { listEmailsRoute } from './emails/list-emails';
import { getEmailRoute } from './emails/get-email';
import { listSuppressionsRoute } from './suppressions/list-suppressions';
import { createSuppressionRoute } from './suppressions/create-suppression';
import { getSuppressionRoute } from './suppressions/get-suppression';
import { deleteSuppressionRoute } from './suppressions/delete-suppression';
import { createWebhookRoute } from './webhooks/create-webhook';
import { listWebhooksRoute } from './webhooks/list-webhooks';
import { getWebhookRoute } from './webhooks/get-webhook';
import { updateWebhookRoute } from './webhooks/update-webhook';
import { deleteWebhookRoute } from './webhooks/delete-webhook';
import { rotateWebhookSecretRoute } from './webhooks/rotate-webhook-secret';
import { listWebhookDeliveriesRoute } from './webhooks/list-webhook-deliveries';
import { createInboundRouteRoute } from './inbound/create-inbound-route';
import { listInboundRoutesRoute } from './inbound/list-inbound-routes';
import { getInboundRouteRoute } from './inbound/get-inbound-route';
import { updateInboundRouteRoute } from './inbound/update-inbound-route';
import { deleteInboundRouteRoute } from './inbound/delete-inbound-route';
import { listInboundEmailsRoute } from './inbound/list-inbound-emails';
import { getInboundEmailRoute } from './inbound/get-inbound-email';
import { getInboundEmailRawRoute } from './inbound/get-inbound-email-raw';
import { getInboundAttachmentRoute } from './inbound/get-inbound-attachment';
import { getAccountRoute } from './account/get-account';
import { createTemplateRoute } from './templates/create-template';
import { listTemplatesRoute } from './templates/list-templates';
import { getTemplateRoute } from './templates/get-template';
import { updateTemplateRoute } from './templates/update-template';
import { deleteTemplateRoute } from './templates/delete-template';
import { listTemplateVersionsRoute } from './templates/list-template-versions';
import { renderTemplateRoute } from './templates/render-template';
import { resendSendEmailRoute } from './resend/send-email';
import { resendSendEmailBatchRoute } from './resend/send-email-batch';
import { resendListEmailsRoute } from './resend/list-emails';
import { resendGetEmailRoute } from './resend/get-email';
import { resendListReceivedEmailsRoute } from './resend/list-received-emails';
import { resendGetReceivedEmailRoute } from './resend/get-received-email';
import { resendCancelEmailRoute } from './resend/cancel-email';
import { resendRescheduleEmailRoute } from './resend/reschedule-email';
import { resendCreateDomainRoute } from './resend/create-domain';
import { resendListDomainsRoute } from './resend/list-domains';
import { resendGetDomainRoute } from './resend/get-domain';
import { resendUpdateDomainRoute } from './resend/update-domain';
import { resendDeleteDomainRoute } from './resend/delete-domain';
import { resendVerifyDomainRoute } from './resend/verify-domain';
import { postmarkSendEmailRoute } from './postmark/send-email';
import { postmarkSendEmailBatchRoute } from './postmark/send-email-batch';
import { postmarkSendEmailWithTemplateRoute } from './postmark/send-email-with-template';
import { postmarkSendEmailBatchWithTemplatesRoute } from './postmark/send-email-batch-with-templates';
import { postmarkListOutboundMessagesRoute } from './postmark/list-outbound-messages';
import { postmarkGetOutboundMessageDetailsRoute } from './postmark/get-outbound-message-details';
import { postmarkListBouncesRoute } from './postmark/list-bounces';
import { postmarkListSuppressionsRoute } from './postmark/list-suppressions';
import { postmarkCreateSuppressionsRoute } from './postmark/create-suppressions';
import { postmarkDeleteSuppressionsRoute } from './postmark/delete-suppressions';

/** Every endpoint of the service; the app and /openapi.json are both built from this list. */
export const apiRoutes: RouteDefinition[] = [
  getHealthz,
  getReadyz,
  getMetrics,
  listSendersRoute,
  createSenderRoute,
  getSenderRoute,
  updateSenderRoute,
  deleteSenderRoute,
  listDomainsRoute,
  createDomainRoute,
  getDomainRoute,
  updateDomainRoute,
  deleteDomainRoute,
  getDomainDnsRoute,
  checkDomainDnsRoute,
  getDomainComplianceRoute,
  rotateDkimKeysRoute,
  sendEmailRoute,
  sendEmailBatchRoute,
  listEmailsRoute,
  getEmailRoute,
  cancelEmailRoute,
  rescheduleEmailRoute,
  listSuppressionsRoute,
  createSuppressionRoute,
  getSuppressionRoute,
  deleteSuppressionRoute,
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
  listWebhookDeliveriesRoute,
  createTemplateRoute,
  listTemplatesRoute,
  getTemplateRoute,
  updateTemplateRoute,
  deleteTemplateRoute,
  listTemplateVersionsRoute,
  renderTemplateRoute,
  getAccountRoute,
  resendSendEmailRoute,
  resendSendEmailBatchRoute,
  resendListEmailsRoute,
  // Before GET /resend/emails/{id}, which would take `receiving` for an id.
  resendListReceivedEmailsRoute,
  resendGetReceivedEmailRoute,
  resendGetEmailRoute,
  resendCancelEmailRoute,
  resendRescheduleEmailRoute,
  resendCreateDomainRoute,
  resendListDomainsRoute,
  resendGetDomainRoute,
  resendUpdateDomainRoute,
  resendDeleteDomainRoute,
  resendVerifyDomainRoute,
  postmarkSendEmailRoute,
  postmarkSendEmailBatchRoute,
  postmarkSendEmailWithTemplateRoute,
  postmarkSendEmailBatchWithTemplatesRoute,
  postmarkListOutboundMessagesRoute,
  postmarkGetOutboundMessageDetailsRoute,
  postmarkListBouncesRoute,
  postmarkListSuppressionsRoute,
  postmarkCreateSuppressionsRoute,
  postmarkDeleteSuppressionsRoute,
  createInboundRouteRoute,
  listInboundRoutesRoute,
  getInboundRouteRoute,
  updateInboundRouteRoute,
  deleteInboundRouteRoute,
  listInboundEmailsRoute,
  getInboundEmailRoute,
  getInboundEmailRawRoute,
  getInboundAttachmentRoute,
  createGetOpenApi(() => apiRoutes),
  getDocs,
  getDocsScript,
  getUnsubscribePageRoute,
  unsubscribeRoute,
  openPixelRoute,
  followLinkRoute,
];
