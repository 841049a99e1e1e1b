import { Writer, type TemplateSpans } from 'mustache';

/**
 * Mustache syntax (docs/api-decisions.md, "Templates"), parsed by the `mustache` package's
 * tokenizer: `{{name}}`, `{{{name}}}` and `{{&name}}`, dotted names, sections `{{#x}}…{{/x}}`
 * and `{{^x}}…{{/x}}`, comments and delimiter changes. Partials (`{{>x}}`) are refused: a
 * template names no other template.
 */

/** Sections inside sections at most: the renderer walks them recursively. */
export const TEMPLATE_MAX_NESTING = 16;

/** One token of the parsed tree, as `mustache` gives it: `[type, value, start, end, children?, closeAt?]`. */
export type TemplateToken = TemplateSpans[number];
export type TemplateTokens = TemplateSpans;

export interface TemplateSyntaxProblem {
  /** 1-based, counted in UTF-16 units as JavaScript and browsers' editors count them. */
  line: number;
  column: number;
  message: string;
}

export type ParsedTemplate = { ok: true; tokens: TemplateTokens } | { ok: false; problem: TemplateSyntaxProblem };

// Parsed templates are not cached: the default writer's cache keeps every template it ever saw.
const parser = Object.assign(new Writer(), { templateCache: undefined });

/** A section's tokens (a partial's fifth member is its indentation, not tokens). */
export const sectionChildren = (token: TemplateToken): TemplateTokens => (Array.isArray(token[4]) ? token[4] : []);

/** Line and column of a UTF-16 offset. */
export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, Math.max(0, Math.min(offset, source.length)));
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
  return { line, column: before.length - lineStart + 1 };
}

/**
 * mustache's errors end with ` at <offset>`; `Invalid tags` (a bad delimiter change) has none and
 * points at the start. An unclosed tag's or section's offset is where the scan ended: the tag's
 * own `{{`, or the section's opening tag, is the last one before it.
 */
function syntaxProblem(source: string, error: unknown): TemplateSyntaxProblem {
  const text = error instanceof Error ? error.message : String(error);
  const at = / at (\d+)$/.exec(text);
  const message = (at ? text.slice(0, at.index) : text).replace(/^Invalid tags: .*/s, 'invalid delimiters in a {{=…=}} tag');
  let offset = at ? Number(at[1]) : 0;
  if (message === 'Unclosed tag') offset = Math.max(0, source.lastIndexOf('{{', offset));
  const section = /^Unclosed section "(.*)"$/s.exec(message);
  if (section) offset = lastOpening(source, section[1]!, offset) ?? offset;
  return { ...lineAndColumn(source, offset), message };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where the last `{{#name}}` or `{{^name}}` before `offset` begins. */
function lastOpening(source: string, name: string, offset: number): number | undefined {
  let found: number | undefined;
  for (const match of source.slice(0, offset).matchAll(new RegExp(`\\{\\{\\s*[#^]\\s*${escapeRegExp(name)}\\s*\\}\\}`, 'g'))) found = match.index;
  return found;
}

/** The deepest section and any partial, which the parser accepts and the service does not. */
function structureProblem(source: string, tokens: TemplateTokens, depth = 1): TemplateSyntaxProblem | null {
  for (const token of tokens) {
    if (token[0] === '>') return { ...lineAndColumn(source, token[2]), message: `partials ({{>${token[1]}}}) are not supported` };
    if (token[0] === '#' || token[0] === '^') {
      if (depth > TEMPLATE_MAX_NESTING) {
        return { ...lineAndColumn(source, token[2]), message: `sections may be nested at most ${TEMPLATE_MAX_NESTING} deep` };
      }
      const inner = structureProblem(source, sectionChildren(token), depth + 1);
      if (inner) return inner;
    }
  }
  return null;
}

/** The template's token tree, or where and why it does not parse. */
export function parseTemplate(source: string): ParsedTemplate {
  let tokens: TemplateTokens;
  try {
    tokens = parser.parse(source) as TemplateTokens;
  } catch (error) {
    return { ok: false, problem: syntaxProblem(source, error) };
  }
  const problem = structureProblem(source, tokens);
  return problem ? { ok: false, problem } : { ok: true, tokens };
}

/** The names a template uses, as written (dotted names kept whole, section names included), in order of first use. */
export function templateVariables(tokens: TemplateTokens, into = new Set<string>()): Set<string> {
  for (const token of tokens) {
    const [type, value] = token;
    // `{{{x}}}` is parsed as `{{&x}}`.
    if ((type === 'name' || type === '&' || type === '#' || type === '^') && value !== '.') into.add(value);
    templateVariables(sectionChildren(token), into);
  }
  return into;
}
