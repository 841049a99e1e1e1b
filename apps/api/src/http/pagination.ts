import { z } from 'zod';
import { AppError, type CursorCodec, type CursorPosition } from '@mailer/domain';

/** An integer query parameter from min to max, validated as its text and documented as the integer it is. */
export const integerParam = (min: number, max: number) => {
  const rule = `must be an integer from ${min} to ${max}`;
  return z.string().regex(/^\d+$/, rule).transform(Number).pipe(z.number().int().min(min, rule).max(max, rule));
};

/** `limit` (1..100, default 50) and `cursor`, shared by every list route (docs/api-decisions.md, "Conventions"). */
export const pageQuerySchema = z.strictObject({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be an integer from 1 to 100')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be an integer from 1 to 100').max(100, 'must be an integer from 1 to 100'))
    .optional()
    .default(50)
    .meta({ type: 'integer', minimum: 1, maximum: 100, default: 50 }),
  cursor: z.string().max(512).optional(),
});

export function pageResponseSchema<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}

/** The position after which the page starts, or undefined for the first page; 400 invalid_cursor for a foreign cursor. */
export function decodeCursor(cursors: CursorCodec, scope: string, cursor: string | undefined): CursorPosition | undefined {
  if (cursor === undefined) return undefined;
  const position = cursors.decode(scope, cursor);
  if (!position) throw new AppError('invalid_cursor', 'The cursor was not issued for this list; start again without one.');
  return position;
}

/**
 * Rows are fetched with `limit + 1` so that a next page is announced only when one exists.
 * Returns the page and the cursor for the next one.
 */
export function toPage<Row extends { createdAt: Date; id: string }>(
  cursors: CursorCodec,
  scope: string,
  rows: Row[],
  limit: number,
): { rows: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > limit && last ? cursors.encode(scope, { createdAt: last.createdAt, id: last.id }) : null };
}
