import { bodyParts, checkSubject, contentProblems } from '../emails/content';
import { HTML_MAX_BYTES, PLAIN_MAX_BYTES, SUBJECT_MAX_CHARS } from '../emails/email-limits';
import { escapeForHtml, noEscape, renderTokens, type RenderBudget } from './render-template';
import { parseTemplate, templateVariables, type TemplateTokens } from './template-syntax';

/** A template's three parts as stored (docs/api-decisions.md, "Templates"): Mustache sources. */
export interface TemplateContent {
  subject: string;
  html: string | null;
  text: string | null;
}

export type TemplatePart = keyof TemplateContent;

export interface TemplateProblem {
  /** The part the problem is in; undefined for the template as a whole. */
  part?: TemplatePart;
  /** Of a source: what is wrong with the part; of a render: a whole sentence, naming the part. */
  message: string;
}

/** A template whose parts all parse: their tokens, and the names they use. */
export interface CompiledTemplate {
  parts: Record<TemplatePart, TemplateTokens | null>;
  variables: string[];
}

/** Token visits a render of one message may make, all parts together: milliseconds of work, whatever the input. */
export const TEMPLATE_RENDER_STEPS = 1_000_000;

const PARTS: readonly TemplatePart[] = ['subject', 'html', 'text'];

/**
 * Every problem of a template's sources: the subject's rules of a message subject (one line,
 * 1..998 characters), the html and text parts' sizes (1 MiB, 256 KiB), one of them present with
 * text, and each part parsing as Mustache (line and column of the first problem); or its
 * compiled form.
 */
export function compileTemplate(content: TemplateContent): { ok: true; compiled: CompiledTemplate } | { ok: false; problems: TemplateProblem[] } {
  const problems: TemplateProblem[] = [];
  const subject = checkSubject(content.subject);
  if (!subject.ok) problems.push(...subject.problems.map((message) => ({ part: 'subject' as const, message })));
  for (const problem of contentProblems({ plain: content.text ?? undefined, html: content.html ?? undefined })) {
    problems.push(problem.part ? { part: problem.part === 'plain' ? 'text' : 'html', message: problem.message } : { message: 'needs html or text with non-whitespace text' });
  }
  const parts = { subject: null, html: null, text: null } as CompiledTemplate['parts'];
  const variables = new Set<string>();
  for (const part of PARTS) {
    const source = content[part];
    if (source === null) continue;
    const parsed = parseTemplate(source);
    if (!parsed.ok) {
      const { line, column, message } = parsed.problem;
      problems.push({ part, message: `does not parse at line ${line}, column ${column}: ${message}` });
      continue;
    }
    parts[part] = parsed.tokens;
    templateVariables(parsed.tokens, variables);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, compiled: { parts, variables: [...variables] } };
}

export interface RenderedTemplate {
  subject: string;
  html: string | null;
  /** Null when the template has no text part: the caller generates it from the html. */
  text: string | null;
}

export type TemplateRender =
  | { ok: true; rendered: RenderedTemplate }
  /** A name the template uses and the variables lack (`template_variable_missing`). */
  | { ok: false; missing: string }
  /** The output breaks a message's rules (too large, an empty or multi-line subject) or took too much work. */
  | { ok: false; problems: TemplateProblem[] };

// Output beyond a message's limits stops the render; UTF-16 units never outnumber UTF-8 bytes.
const MAX_LENGTH: Record<TemplatePart, number> = { subject: 4 * SUBJECT_MAX_CHARS, html: HTML_MAX_BYTES, text: PLAIN_MAX_BYTES };
const TOO_LARGE: Record<TemplatePart, string> = {
  subject: `the rendered subject would have more than ${SUBJECT_MAX_CHARS} characters`,
  html: `the rendered html would have more than ${HTML_MAX_BYTES} bytes`,
  text: `the rendered text would have more than ${PLAIN_MAX_BYTES} bytes`,
};

/**
 * A compiled template rendered with the caller's variables into a message's subject, html and
 * text, which must then hold to the rules of any message (section 4 of the contract): HTML
 * escaping in the html part only; the first name missing from the variables stops it.
 */
export function renderTemplate(compiled: CompiledTemplate, variables: Record<string, unknown>): TemplateRender {
  const budget: RenderBudget = { steps: TEMPLATE_RENDER_STEPS };
  const out: Record<TemplatePart, string | null> = { subject: null, html: null, text: null };
  for (const part of PARTS) {
    const tokens = compiled.parts[part];
    if (!tokens) continue;
    const outcome = renderTokens(tokens, variables, { escape: part === 'html' ? escapeForHtml : noEscape, maxLength: MAX_LENGTH[part], budget });
    if (outcome.ok) {
      out[part] = outcome.output;
      continue;
    }
    switch (outcome.reason) {
      case 'missing':
        return { ok: false, missing: outcome.name };
      case 'too_large':
        return { ok: false, problems: [{ part, message: TOO_LARGE[part] }] };
      case 'too_much_work':
        return { ok: false, problems: [{ message: `the template takes more than ${TEMPLATE_RENDER_STEPS} steps to render with these variables` }] };
    }
  }
  const problems: TemplateProblem[] = [];
  const subject = checkSubject(out.subject ?? '');
  if (!subject.ok) problems.push(...subject.problems.map((message) => ({ part: 'subject' as const, message: `the rendered subject ${message}` })));
  for (const problem of contentProblems({ plain: out.text ?? undefined, html: out.html ?? undefined })) {
    const part = problem.part === 'plain' ? 'text' : problem.part;
    problems.push(part ? { part, message: `the rendered ${part} ${problem.message}` } : { message: 'the template renders to no html or text with non-whitespace text' });
  }
  if (!subject.ok || problems.length > 0) return { ok: false, problems };
  // A part that renders to white space only is left out, as a message's would be.
  const body = bodyParts({ plain: out.text ?? undefined, html: out.html ?? undefined });
  return { ok: true, rendered: { subject: subject.value, ...body } };
}
