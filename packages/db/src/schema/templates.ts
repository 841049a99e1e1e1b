import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, instant, updatedAt } from './columns';

/** What each version records: Mustache sources and the names they use. */
const versionColumns = () => ({
  version: integer('version').notNull(),
  name: text('name').notNull(),
  alias: text('alias'),
  subject: text('subject').notNull(),
  html: text('html'),
  text: text('text'),
  variables: jsonb('variables').$type<string[]>().notNull(),
});

/**
 * An account's template as it now is (docs/api-decisions.md, "Templates"): Mustache sources and
 * the names they use. Every change writes a new row of template_versions too, so that a message
 * can name the version it was rendered from. Deleting sets `deleted_at` and frees the alias.
 */
export const templates = pgTable(
  'templates',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    ...versionColumns(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: instant('deleted_at'),
  },
  (t) => [
    index('templates_account_list_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()).where(sql`deleted_at is null`),
    uniqueIndex('templates_account_alias_key').on(t.accountId, t.alias).where(sql`deleted_at is null and alias is not null`),
  ],
);

/** Each version of a template, kept while the template's messages may name it. */
export const templateVersions = pgTable(
  'template_versions',
  {
    id: text('id').primaryKey(),
    templateId: text('template_id').notNull().references(() => templates.id),
    ...versionColumns(),
    createdAt: createdAt(),
  },
  (t) => [
    unique('template_versions_template_version_key').on(t.templateId, t.version),
    index('template_versions_list_idx').on(t.templateId, t.createdAt.desc(), t.id.desc()),
  ],
);
