import { isIdOf, isTemplateAlias, newId, type TemplateContent, type TemplateReference } from '@mailer/domain';
import type { Database, Queryable, Row } from '../database';
import { inTransaction, type Transaction } from '../transaction';
import { newestFirst, type PagePosition } from './keyset';

/** A template's fields that each version records. */
export interface TemplateFields extends TemplateContent {
  name: string;
  alias: string | null;
  /** The names its parts use (compileTemplate). */
  variables: string[];
}

/** A template as it now is (docs/api-decisions.md, "Templates"). */
export interface Template extends TemplateFields {
  id: string;
  accountId: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** One version, as it was written; `id` only orders the list. */
export interface TemplateVersion extends TemplateFields {
  id: string;
  templateId: string;
  version: number;
  createdAt: Date;
}

const fieldsOf = (r: Row): TemplateFields => ({ name: r.name, alias: r.alias, subject: r.subject, html: r.html, text: r.text, variables: r.variables });

const toTemplate = (r: Row): Template => ({
  id: r.id,
  accountId: r.account_id,
  version: r.version,
  ...fieldsOf(r),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const templateColumns = (db: Queryable) => db`id, account_id, version, name, alias, subject, html, text, variables, created_at, updated_at`;

export type TemplateWriteResult =
  | { kind: 'written'; template: Template }
  | { kind: 'limit_reached'; existing: number; max: number }
  | { kind: 'alias_taken' }
  | { kind: 'not_found' };

/** Locks the account row, so that its template writes are serialized (alias uniqueness and the plan's count). */
const lockAccount = (tx: Transaction, accountId: string) => tx.sql`select id from accounts where id = ${accountId} for update`;

const aliasTaken = (tx: Transaction, accountId: string, alias: string | null, exceptId: string) =>
  tx.sql`select 1 from templates where account_id = ${accountId} and alias = ${alias} and deleted_at is null and id <> ${exceptId}`;

const versionInsert = (tx: Transaction, templateId: string, version: number, f: TemplateFields, now: Date) => tx.sql`
  insert into template_versions (id, template_id, version, name, alias, subject, html, text, variables, created_at)
  values (${newId('templateVersion')}, ${templateId}, ${version}, ${f.name}, ${f.alias}, ${f.subject}, ${f.html}, ${f.text},
          ${tx.sql.json(f.variables)}, ${now})`;

/**
 * Inserts a template as version 1 unless the account already has its plan's `max_templates`
 * (not deleted) or another template has the alias. The account row is locked first, so
 * concurrent writes of one account count and see each other.
 */
export async function createTemplate(db: Database, accountId: string, fields: TemplateFields, now: Date): Promise<TemplateWriteResult> {
  return inTransaction(db, async (tx): Promise<TemplateWriteResult> => {
    const id = newId('template');
    const [, [quota], taken] = await tx.send(
      lockAccount(tx, accountId),
      tx.sql`
        select (select count(*) from templates where account_id = ${accountId} and deleted_at is null) as existing, p.max_templates
          from accounts a join plans p on p.id = a.plan_id
         where a.id = ${accountId}`,
      aliasTaken(tx, accountId, fields.alias, id),
    );
    const existing = Number(quota!.existing);
    if (existing >= quota!.max_templates) return { kind: 'limit_reached', existing, max: quota!.max_templates };
    if (taken.length > 0) return { kind: 'alias_taken' };
    const [[row]] = await tx.commit(
      tx.sql`
        insert into templates (id, account_id, version, name, alias, subject, html, text, variables, created_at, updated_at)
        values (${id}, ${accountId}, 1, ${fields.name}, ${fields.alias}, ${fields.subject}, ${fields.html}, ${fields.text},
                ${tx.sql.json(fields.variables)}, ${now}, ${now})
        returning ${templateColumns(tx.sql)}`,
      versionInsert(tx, id, 1, fields, now),
    );
    return { kind: 'written', template: toTemplate(row!) };
  });
}

/** The account's template of that id or alias (not deleted); anything else of either shape finds nothing. */
export async function findTemplate(db: Queryable, accountId: string, reference: TemplateReference): Promise<Template | undefined> {
  if ('id' in reference ? !isIdOf('template', reference.id) : !isTemplateAlias(reference.alias)) return undefined;
  const [row] =
    'id' in reference
      ? await db`select ${templateColumns(db)} from templates where id = ${reference.id} and account_id = ${accountId} and deleted_at is null`
      : await db`select ${templateColumns(db)} from templates where alias = ${reference.alias} and account_id = ${accountId} and deleted_at is null`;
  return row && toTemplate(row);
}

export async function listTemplates(db: Queryable, accountId: string, position: PagePosition | undefined, limit: number): Promise<Template[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`select ${templateColumns(db)} from templates where account_id = ${accountId} and deleted_at is null ${page.after} ${page.page}`;
  return rows.map(toTemplate);
}

const sameFields = (a: TemplateFields, b: TemplateFields) =>
  a.name === b.name && a.alias === b.alias && a.subject === b.subject && a.html === b.html && a.text === b.text;

/**
 * Writes `next` as the template's next version; a change that changes nothing writes nothing,
 * `updated_at` included. Under the account's lock, as creation.
 */
export async function updateTemplate(db: Database, template: Template, next: TemplateFields, now: Date): Promise<TemplateWriteResult> {
  if (sameFields(template, next)) return { kind: 'written', template };
  return inTransaction(db, async (tx): Promise<TemplateWriteResult> => {
    const [, [current], taken] = await tx.send(
      lockAccount(tx, template.accountId),
      tx.sql`select version from templates where id = ${template.id} and deleted_at is null`,
      aliasTaken(tx, template.accountId, next.alias, template.id),
    );
    if (!current) return { kind: 'not_found' };
    if (taken.length > 0) return { kind: 'alias_taken' };
    const version = current.version + 1;
    const [[row]] = await tx.commit(
      tx.sql`
        update templates
           set version = ${version}, name = ${next.name}, alias = ${next.alias}, subject = ${next.subject}, html = ${next.html},
               text = ${next.text}, variables = ${tx.sql.json(next.variables)}, updated_at = ${now}
         where id = ${template.id}
        returning ${templateColumns(tx.sql)}`,
      versionInsert(tx, template.id, version, next, now),
    );
    return { kind: 'written', template: toTemplate(row!) };
  });
}

/** Soft delete: the alias is free again; its versions stay for the messages that name them. False when there was no such template. */
export async function deleteTemplate(db: Queryable, accountId: string, id: string, now: Date): Promise<boolean> {
  const deleted = await db`
    update templates set deleted_at = ${now}, updated_at = ${now} where id = ${id} and account_id = ${accountId} and deleted_at is null returning id`;
  return deleted.length > 0;
}

export async function listTemplateVersions(db: Queryable, templateId: string, position: PagePosition | undefined, limit: number): Promise<TemplateVersion[]> {
  const page = newestFirst(db, position, limit);
  const rows = await db`
    select id, template_id, version, name, alias, subject, html, text, variables, created_at
      from template_versions where template_id = ${templateId} ${page.after} ${page.page}`;
  return rows.map((r) => ({ id: r.id, templateId: r.template_id, version: r.version, ...fieldsOf(r), createdAt: r.created_at }));
}
