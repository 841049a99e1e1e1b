import { z } from 'zod';
import { DELIVERY_STATUSES, parseRfc3339, parseTagFilter, RFC_3339_RULE } from '@mailer/domain';
import type { EmailListFilters, EmailOwner } from '@mailer/operations';
import { pageQuerySchema } from '../../http/pagination';

/** An RFC 3339 instant as a query parameter (the list filters' date ranges). */
export const instant = (description: string) =>
  z
    .string()
    .meta({ format: 'date-time', description })
    .transform((value, ctx) => {
      const parsed = parseRfc3339(value);
      if (!parsed) ctx.addIssue({ code: 'custom', message: RFC_3339_RULE });
      return parsed ?? z.NEVER;
    });

/** GET /v1/emails: the page and the filters (docs/api-decisions.md, "Send API additions"). */
export const listEmailsQuerySchema = pageQuerySchema.extend({
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of: ${DELIVERY_STATUSES.join(', ')}` }).optional().meta({ description: "Only messages whose (derived) status is this." }),
  tag: z
    .string()
    .meta({ description: 'Only messages with this tag, as `name:value` (split at the first colon).', example: 'campaign:spring' })
    .transform((value, ctx) => {
      const parsed = parseTagFilter(value);
      if (!parsed) ctx.addIssue({ code: 'custom', message: 'must be name:value, a tag name (1 to 64 of A-Z a-z 0-9 _ -) and its value' });
      return parsed ?? z.NEVER;
    })
    .optional(),
  created_after: instant('Only messages created after this instant (exclusive).').optional(),
  created_before: instant('Only messages created before this instant (exclusive).').optional(),
});

export function listFilters(query: z.infer<typeof listEmailsQuerySchema>): EmailListFilters {
  return {
    ...(query.status ? { status: query.status } : {}),
    ...(query.tag ? { tag: query.tag } : {}),
    ...(query.created_after ? { createdAfter: query.created_after } : {}),
    ...(query.created_before ? { createdBefore: query.created_before } : {}),
  };
}

/**
 * The cursor scope of a filtered list: the account, its mode and the filters, so that a cursor is
 * refused (400 invalid_cursor) with any other key or filters than those of the page that issued it.
 */
export function listScope(owner: EmailOwner, filters: EmailListFilters): string {
  const canonical = [filters.status ?? null, filters.tag ? [filters.tag.key, filters.tag.value] : null, filters.createdAfter?.getTime() ?? null, filters.createdBefore?.getTime() ?? null];
  return `emails:${owner.accountId}${owner.test ? ':test' : ''}:${JSON.stringify(canonical)}`;
}
