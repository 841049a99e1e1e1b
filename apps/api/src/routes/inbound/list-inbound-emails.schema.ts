import { z } from 'zod';
import { addressKey } from '@mailer/domain';
import type { InboundListFilters } from '@mailer/operations';
import { pageQuerySchema } from '../../http/pagination';
import { instant } from '../emails/list-emails.schema';

const address = (description: string) => z.string().min(1).max(254).transform(addressKey).meta({ description });

/** GET /v1/inbound/emails: the page and the filters (docs/api-decisions.md, "Inbound mail"). */
export const listInboundEmailsQuerySchema = pageQuerySchema.extend({
  to: address('Only messages received for this envelope recipient (case ignored).').optional(),
  from: address("Only messages whose From header's address is this (case ignored).").optional(),
  received_after: instant('Only messages received after this instant (exclusive).').optional(),
  received_before: instant('Only messages received before this instant (exclusive).').optional(),
});

export function inboundListFilters(query: z.infer<typeof listInboundEmailsQuerySchema>): InboundListFilters {
  return {
    ...(query.to ? { to: query.to } : {}),
    ...(query.from ? { from: query.from } : {}),
    ...(query.received_after ? { receivedAfter: query.received_after } : {}),
    ...(query.received_before ? { receivedBefore: query.received_before } : {}),
  };
}

/** The cursor scope: the account and the filters, so a cursor is valid only for the list that issued it. */
export const inboundListScope = (accountId: string, f: InboundListFilters): string =>
  `inbound-emails:${accountId}:${JSON.stringify([f.to ?? null, f.from ?? null, f.receivedAfter?.getTime() ?? null, f.receivedBefore?.getTime() ?? null])}`;
