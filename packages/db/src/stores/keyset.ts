import type { Queryable } from '../database';

/** Where the previous page ended: its last row's (created_at, id). */
export interface PagePosition {
  createdAt: Date;
  id: string;
  /**
   * The page before the position instead (Resend's `before`): rows newer than it, read oldest
   * first, nearest the position first; the caller reverses them to newest first.
   */
  newer?: boolean;
}

/**
 * Newest-first keyset pagination over (created_at, id): rows inserted meanwhile can
 * neither repeat nor be skipped, unlike OFFSET. The fragments name `created_at` and `id`
 * unqualified, so the statement must expose exactly one table with those columns; the
 * order is that of the lists' indexes (`… created_at desc, id desc`).
 */
export function newestFirst(db: Queryable, position: PagePosition | undefined, limit: number) {
  return {
    /** An `and …` condition for the WHERE clause: rows older than the position, or nothing on the first page. */
    after: !position
      ? db``
      : position.newer
        ? db`and (created_at, id) > (${position.createdAt}, ${position.id})`
        : db`and (created_at, id) < (${position.createdAt}, ${position.id})`,
    /** The ORDER BY and LIMIT ending the statement. */
    page: position?.newer ? db`order by created_at, id limit ${limit}` : db`order by created_at desc, id desc limit ${limit}`,
  };
}
