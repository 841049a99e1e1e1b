import { normalizeOneLineText, oneLineTextRule } from '../accounts/account-settings';
import { isIdOf } from '../ids';

/** A template's name: what the console and lists show (docs/api-decisions.md, "Templates"). */
export const TEMPLATE_NAME_MAX_CHARS = 200;
export const TEMPLATE_NAME_RULE = oneLineTextRule(TEMPLATE_NAME_MAX_CHARS);
export const normalizeTemplateName = (raw: string) => normalizeOneLineText(raw, TEMPLATE_NAME_MAX_CHARS);

/** An alias: how an application names a template when sending, unique among the account's templates. */
export const TEMPLATE_ALIAS_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const TEMPLATE_ALIAS_RULE = 'must be 1 to 64 of a-z, 0-9, _ and -, not beginning with tpl_';

/** Whether `alias` may be an alias; one beginning with `tpl_` could be taken for an id. */
export const isTemplateAlias = (alias: string) => TEMPLATE_ALIAS_PATTERN.test(alias) && !alias.startsWith('tpl_');

/** A reference by id (`tpl_…`) or by alias, as a message or a path names a template. */
export type TemplateReference = { id: string } | { alias: string };

/** What one string naming a template refers to (a path's `{id_or_alias}`, Resend's `template.id`): a `tpl_…` id, else an alias. */
export const templateReference = (idOrAlias: string): TemplateReference => (isIdOf('template', idOrAlias) ? { id: idOrAlias } : { alias: idOrAlias });
