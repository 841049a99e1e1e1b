import { z } from 'zod';
import { integerParam } from '../../http/pagination';
import { AppError } from '@mailer/domain';
import type { PagePosition } from '@mailer/operations';

/** Resend's paging: `limit` (1..100, 20 by default) and an item id to page `after` or `before` (not both). */
export const resendPageQuerySchema = z
  .strictObject({
    limit: integerParam(1, 100).optional().default(20).meta({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
    after: z.string().max(64).optional().meta({ description: 'The id of the last item of the previous page: the older items after it.' }),
    before: z.string().max(64).optional().meta({ description: 'The id of the first item of the next page: the newer items before it.' }),
  })
  .refine((q) => q.after === undefined || q.before === undefined, { message: 'give after or before, not both', path: ['before'] });

export const resendListSchema = <T extends z.ZodType>(item: T, id: string) =>
  z.object({ object: z.literal('list'), has_more: z.boolean(), data: z.array(item) }).meta({ id });

/**
 * The keyset position of `after` or `before`, from the item it names (found by `find`); an
 * id that names no item of the list is refused, as a foreign cursor is on /v1.
 */
export async function resendPosition(
  query: { after?: string; before?: string },
  find: (id: string) => Promise<{ createdAt: Date; id: string } | undefined>,
): Promise<PagePosition | undefined> {
  const id = query.after ?? query.before;
  if (id === undefined) return undefined;
  const item = await find(id);
  if (!item) throw new AppError('invalid_cursor', `${query.after ? 'after' : 'before'} names no item of this list.`);
  return { createdAt: item.createdAt, id: item.id, newer: query.before !== undefined };
}

/** Rows read with `limit + 1` as a page in Resend's terms, newest first. */
export function resendPage<Row>(rows: Row[], limit: number, position: PagePosition | undefined): { has_more: boolean; rows: Row[] } {
  const page = rows.slice(0, limit);
  return { has_more: rows.length > limit, rows: position?.newer ? page.reverse() : page };
}
