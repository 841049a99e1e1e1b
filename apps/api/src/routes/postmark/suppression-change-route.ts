import { parseMailbox, type EmailType, type Mailbox } from '@mailer/domain';
import type { ApiDependencies } from '../../container';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { postmarkSuppressionChangeSchema, postmarkSuppressionResultsSchema } from './postmark-suppressions';
import { streamOfPostmark } from './postmark-streams';

type ChangeResult = { Status: 'Suppressed' | 'Deleted' | 'Failed'; Message: string | null };

interface SuppressionChange {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  /** What one listed address becomes on the stream: `mailbox` is undefined when EmailAddress is not an email address. */
  apply(deps: ApiDependencies, accountId: string, stream: EmailType, mailbox: Mailbox | undefined): Promise<ChangeResult>;
}

/**
 * Postmark's createSuppressions and deleteSuppressions: `{Suppressions: [{EmailAddress}]}` on the
 * stream the path names, one result per address, each change made by the /v1 suppression store.
 */
export function suppressionChangeRoute(change: SuppressionChange) {
  return defineRoute({
    method: 'post',
    path: change.path,
    operationId: change.operationId,
    tag: 'postmark',
    summary: change.summary,
    description: change.description,
    auth: { kind: 'management', scope: 'suppressions:write' },
    dialect: postmarkDialect,
    body: postmarkSuppressionChangeSchema,
    responses: { 200: { description: 'One result per address.', schema: postmarkSuppressionResultsSchema } },
    async handle({ res, deps, key, params, body }) {
      const stream = streamOfPostmark(params.stream!);
      const results = [];
      for (const { EmailAddress } of body().Suppressions) results.push({ EmailAddress, ...(await change.apply(deps, key.accountId, stream, parseMailbox(EmailAddress))) });
      sendJson(res, 200, { Suppressions: results });
    },
  });
}
