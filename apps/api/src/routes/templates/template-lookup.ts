import { findTemplate, type Queryable, type Template, type TemplateFields, type TemplateWriteResult } from '@mailer/operations';
import { AppError, compileTemplate, templateReference, validationError, type TemplateContent } from '@mailer/domain';

export const templateNotFound = () => new AppError('template_not_found', 'No template with this id or alias exists in this account.');

/** The path's `{id_or_alias}`: a `tpl_…` id, else an alias. */
export async function requireTemplate(db: Queryable, accountId: string, idOrAlias: string): Promise<Template> {
  const template = await findTemplate(db, accountId, templateReference(idOrAlias));
  if (!template) throw templateNotFound();
  return template;
}

/** The fields to store, with the names the parts use; 422 naming each part that breaks a rule or does not parse (line and column). */
export function templateFields(input: TemplateContent & { name: string; alias: string | null }): TemplateFields {
  const compiled = compileTemplate(input);
  if (!compiled.ok) throw validationError(compiled.problems.map((p) => ({ path: p.part ?? '(template)', message: p.message })));
  return { ...input, variables: compiled.compiled.variables };
}

/** The template written, or the contract's refusal. */
export function writtenTemplate(result: TemplateWriteResult): Template {
  switch (result.kind) {
    case 'written':
      return result.template;
    case 'limit_reached':
      throw new AppError('template_limit_exceeded', `This account has ${result.existing} templates, the most its plan allows (${result.max}); delete one first.`);
    case 'alias_taken':
      throw new AppError('template_alias_conflict', 'Another template of this account has this alias.', { details: [{ path: 'alias', message: 'is used by another template' }] });
    case 'not_found':
      throw templateNotFound();
  }
}
