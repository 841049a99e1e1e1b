import { z } from 'zod';
import { listSuppressions } from '@mailer/operations';
import { defineRoute } from '../../http/route';
import { sendJson } from '../../http/respond';
import { postmarkDialect } from './postmark-dialect';
import { POSTMARK_MAX_WINDOW, postmarkPageQuerySchema } from './postmark-page';
import { POSTMARK_STREAM_IDS, postmarkStreamOf } from './postmark-streams';

const bounce = z
  .object({
    ID: z.string().meta({ description: 'The address: a bounce is known here by the suppression it caused.' }),
    Type: z.enum(['HardBounce', 'SpamComplaint']),
    TypeCode: z.number().int().meta({ description: '1 HardBounce, 512 SpamComplaint.' }),
    Email: z.string(),
    MessageID: z.string().nullable().meta({ description: 'The message whose bounce or complaint it was (em_…).' }),
    MessageStream: z.enum(POSTMARK_STREAM_IDS).meta({ description: "The entry's stream; `outbound` for a hard bounce, which holds for every stream." }),
    BouncedAt: z.string().meta({ format: 'date-time' }),
    Inactive: z.literal(true),
    CanActivate: z.literal(true),
    DumpAvailable: z.literal(false),
  })
  .meta({ id: 'PostmarkBounce' });

export const postmarkListBouncesRoute = defineRoute({
  method: 'get',
  path: '/postmark/bounces',
  operationId: 'postmarkListBounces',
  tag: 'postmark',
  summary: "Postmark's bounces: the suppressions hard bounces and complaints added (GET /v1/suppressions), newest first.",
  description: 'A management key with suppressions:read, as /v1 asks. A soft bounce (a deferral) is an event of its message, not listed here.',
  auth: { kind: 'management', scope: 'suppressions:read' },
  dialect: postmarkDialect,
  query: postmarkPageQuerySchema,
  responses: { 200: { description: 'One page.', schema: z.object({ TotalCount: z.number().int(), Bounces: z.array(bounce) }).meta({ id: 'PostmarkBounces' }) } },
  async handle({ res, deps, key, query }) {
    const rows = (await listSuppressions(deps.db, key.accountId, { limit: POSTMARK_MAX_WINDOW })).filter((s) => s.reason === 'hard_bounce' || s.reason === 'complaint');
    const bounces = rows.slice(query.offset, query.offset + query.count).map((s) => ({
      ID: s.email,
      Type: s.reason === 'hard_bounce' ? ('HardBounce' as const) : ('SpamComplaint' as const),
      TypeCode: s.reason === 'hard_bounce' ? 1 : 512,
      Email: s.email,
      MessageID: s.emailId,
      MessageStream: s.stream === null ? ('outbound' as const) : postmarkStreamOf(s.stream),
      BouncedAt: s.createdAt.toISOString(),
      Inactive: true as const,
      CanActivate: true as const,
      DumpAvailable: false as const,
    }));
    sendJson(res, 200, { TotalCount: rows.length, Bounces: bounces });
  },
});
