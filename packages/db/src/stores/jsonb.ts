import { sql } from 'drizzle-orm';

/** A value as one jsonb parameter: row sets of any size in one statement text (see jsonb_to_recordset). */
export const jsonb = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;
