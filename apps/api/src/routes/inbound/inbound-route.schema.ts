import { z } from 'zod';
import { parseRoutePattern } from '@mailer/domain';
import { pageQuerySchema } from '../../http/pagination';

const pattern = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
  .transform((value, ctx) => {
    const parsed = parseRoutePattern(value);
    if (!parsed) ctx.addIssue({ code: 'custom', message: 'must be an address such as support@example.com, or *@example.com' });
    return parsed ?? z.NEVER;
  })
  .meta({ description: '`support@example.com` (one address) or `*@example.com` (every address) at a domain of yours or its receiving subdomain.' });

const webhookId = z.string().nullable().meta({ description: 'wh_…: send its `email.received` events to this endpoint only (whatever its `events`); null or absent: to every endpoint subscribed to `email.received`.' });
const enabled = z.boolean({ error: () => 'must be true or false' }).meta({ description: 'A disabled route matches nothing: its addresses are refused at RCPT.' });

export const createInboundRouteBodySchema = z.strictObject({ pattern, webhook_id: webhookId.optional(), enabled: enabled.optional() }).meta({ id: 'CreateInboundRouteRequest' });
export const updateInboundRouteBodySchema = z.strictObject({ webhook_id: webhookId.optional(), enabled: enabled.optional() }).meta({ id: 'UpdateInboundRouteRequest' });
export const listInboundRoutesQuerySchema = pageQuerySchema;
