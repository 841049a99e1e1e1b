import { escape as escapeHtml } from 'mustache';
import { sectionChildren, type TemplateToken, type TemplateTokens } from './template-syntax';

/**
 * Renders a parsed Mustache template against JSON variables (docs/api-decisions.md,
 * "Templates"), with mustache's semantics: names are looked up from the innermost section's
 * value outwards, dotted names walk into objects, a section renders once per array item, once
 * for any other truthy value and never for a falsy one or an empty array, an inverted section
 * the other way round; `{{x}}` goes through `escape` (HTML escaping in the html part, none
 * elsewhere), `{{{x}}}` and `{{&x}}` never do.
 *
 * Unlike mustache's own renderer it is bounded, so that no template and variables can hang or
 * exhaust the API: it stops once the output passes `maxLength` UTF-16 units or the walk passes
 * `budget.steps` tokens and section items (a section over a huge array inside another one); the
 * parser bounds the nesting. Names resolve to own properties only (`{{x.constructor}}` is
 * missing, never a function of the prototype), and a name found nowhere is reported, not
 * rendered empty.
 */

export type RenderOutcome =
  | { ok: true; output: string }
  | { ok: false; reason: 'missing'; name: string }
  | { ok: false; reason: 'too_large' }
  | { ok: false; reason: 'too_much_work' };

/** Token visits left to a render; shared by the parts of one message so that their sum is bounded. */
export interface RenderBudget {
  steps: number;
}

export interface RenderOptions {
  escape: (value: string) => string;
  maxLength: number;
  budget: RenderBudget;
}

/** The HTML part's escaping: mustache's own (`& < > " ' / \` =`). */
export const escapeForHtml = (value: string): string => escapeHtml(value);
export const noEscape = (value: string): string => value;

/** A stop, carried out of the recursion. */
class Stop {
  constructor(readonly outcome: Exclude<RenderOutcome, { ok: true }>) {}
}

type Found = { found: true; value: unknown } | { found: false };

const hasOwn = (value: unknown, name: string) => value !== null && value !== undefined && Object.hasOwn(value as object, name);

/** mustache's lookup over own properties: the first context (innermost first) in which the whole dotted name resolves. */
function lookup(stack: readonly unknown[], name: string): Found {
  if (name === '.') return { found: true, value: stack[stack.length - 1] };
  const names = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    let value = stack[i];
    let found = true;
    for (const part of names) {
      if (!hasOwn(value, part)) {
        found = false;
        break;
      }
      value = (value as Record<string, unknown>)[part];
    }
    if (found) return { found: true, value };
  }
  return { found: false };
}

/** As mustache writes a value: nothing for null, String() for anything else. */
const asText = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

const isFalsy = (value: unknown) => !value || (Array.isArray(value) && value.length === 0);

class Renderer {
  private output = '';

  constructor(private readonly options: RenderOptions) {}

  private step(): void {
    if (--this.options.budget.steps < 0) throw new Stop({ ok: false, reason: 'too_much_work' });
  }

  private write(text: string): void {
    if (this.output.length + text.length > this.options.maxLength) throw new Stop({ ok: false, reason: 'too_large' });
    this.output += text;
  }

  private resolve(stack: readonly unknown[], name: string): unknown {
    const found = lookup(stack, name);
    if (!found.found) throw new Stop({ ok: false, reason: 'missing', name });
    return found.value;
  }

  walk(tokens: TemplateTokens, stack: unknown[]): void {
    for (const token of tokens) {
      this.step();
      this.token(token, stack);
    }
  }

  private token(token: TemplateToken, stack: unknown[]): void {
    const [type, name] = token;
    switch (type) {
      case 'text':
        return this.write(name);
      case 'name':
        return this.write(this.options.escape(asText(this.resolve(stack, name))));
      case '&':
        return this.write(asText(this.resolve(stack, name)));
      case '#':
        return this.section(sectionChildren(token), stack, this.resolve(stack, name));
      case '^':
        if (isFalsy(this.resolve(stack, name))) this.walk(sectionChildren(token), stack);
        return;
      default:
        // Comments and delimiter changes write nothing; the parser refuses partials.
        return;
    }
  }

  private section(children: TemplateTokens, stack: unknown[], value: unknown): void {
    if (isFalsy(value)) return;
    if (Array.isArray(value)) {
      for (const item of value) {
        this.step();
        this.walk(children, [...stack, item]);
      }
    } else if (typeof value === 'object' || typeof value === 'string' || typeof value === 'number') {
      this.walk(children, [...stack, value]);
    } else {
      this.walk(children, stack);
    }
  }

  result(): string {
    return this.output;
  }
}

/** One part of a template rendered; `variables` is the outermost context (mustache's view). */
export function renderTokens(tokens: TemplateTokens, variables: unknown, options: RenderOptions): RenderOutcome {
  const renderer = new Renderer(options);
  try {
    renderer.walk(tokens, [variables]);
  } catch (error) {
    if (error instanceof Stop) return error.outcome;
    throw error;
  }
  return { ok: true, output: renderer.result() };
}
