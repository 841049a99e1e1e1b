import { and, desc, lt, or, eq, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Newest-first keyset pagination over (created_at, id): rows inserted meanwhile can
 * neither repeat nor be skipped, unlike OFFSET.
 */
export function after(createdAt: PgColumn, id: PgColumn, position: { createdAt: Date; id: string } | undefined): SQL | undefined {
  if (!position) return undefined;
  return or(lt(createdAt, position.createdAt), and(eq(createdAt, position.createdAt), lt(id, position.id)));
}

export function newestFirst(createdAt: PgColumn, id: PgColumn): SQL[] {
  return [desc(createdAt), desc(id)];
}
