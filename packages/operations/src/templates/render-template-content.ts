import { AppError, compileTemplate, renderTemplate, validationError, type RenderedTemplate, type TemplateContent } from '@mailer/domain';
import { plainAlternative } from '@mailer/message';

/**
 * A stored template rendered with the caller's variables (docs/api-decisions.md, "Templates"),
 * as intake sends it and the preview shows it: without a text part of its own the plain part is
 * generated from the rendered HTML, as for any HTML-only message. `variablesPath` is where the
 * request holds the variables (`variables`, `template.variables`, `[3].template.variables`).
 * Throws `422 template_variable_missing` naming the first name the variables lack, and a
 * `validation_error` when the output breaks a message's rules.
 */
export function renderTemplateContent(content: TemplateContent, variables: Record<string, unknown>, variablesPath: string): RenderedTemplate & { text: string } {
  const compiled = compileTemplate(content);
  // Stored templates passed compileTemplate when they were written.
  if (!compiled.ok) throw new Error(`stored template does not compile: ${compiled.problems[0]?.message}`);
  const render = renderTemplate(compiled.compiled, variables);
  if (!render.ok) {
    if ('missing' in render) {
      throw new AppError('template_variable_missing', `The template uses "${render.missing}", which the variables do not give.`, {
        details: [{ path: variablesPath, message: `lacks "${render.missing}", which the template uses` }],
      });
    }
    throw validationError(
      render.problems.map((p) => ({ path: variablesPath, message: p.message })),
      'The template rendered with these variables is not a message the service can send.',
    );
  }
  const { rendered } = render;
  return { ...rendered, text: rendered.text ?? plainAlternative(rendered.html ?? '') };
}
