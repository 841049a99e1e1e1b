import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns';

/**
 * The links of a tracked delivery whose message retention deleted (docs/api-decisions.md, "Opens
 * and clicks"): its click tokens redirect by them, recording nothing, until `expires_at`, past the
 * last day any of its tokens verifies.
 */
export const retiredTrackedLinks = pgTable(
  'retired_tracked_links',
  {
    deliveryId: text('delivery_id').primaryKey(),
    links: jsonb('links').$type<string[]>().notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [index('retired_tracked_links_expires_idx').on(t.expiresAt)],
);
