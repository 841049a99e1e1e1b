import { defineRoute } from '../../http/route';
import { RATE_LIMIT_HEADERS } from '../../http/rate-limit-headers';
import { INTAKE_ERRORS } from '../emails/accepted-answer';
import { postmarkDialect } from './postmark-dialect';
import { postmarkSentSchema, postmarkTemplatedEmailSchema } from './postmark-email.schema';
import { acceptPostmarkMessage } from './send-email';

export const postmarkSendEmailWithTemplateRoute = defineRoute({
  method: 'post',
  path: '/postmark/email/withTemplate',
  operationId: 'postmarkSendEmailWithTemplate',
  tag: 'postmark',
  summary: "Postmark's templated send: POST /v1/emails with `template`.",
  description:
    'TemplateId (a `tpl_…` id) or TemplateAlias with TemplateModel as `template: {id | alias, variables}`, and the other members as ' +
    'POST /postmark/email takes them, rendered at intake by the /v1 rules (docs/api-decisions.md, "Resend and Postmark adapters").',
  auth: { kind: 'sending' },
  dialect: postmarkDialect,
  errors: INTAKE_ERRORS,
  example: { From: 'Example <hello@example.com>', To: 'Ann <ann@example.org>', TemplateAlias: 'welcome', TemplateModel: { name: 'Ann' } },
  body: postmarkTemplatedEmailSchema,
  responses: { 200: { description: 'Accepted and queued.', schema: postmarkSentSchema, headers: RATE_LIMIT_HEADERS } },
  handle: acceptPostmarkMessage,
});
