import { findTemplate, type Queryable } from '@mailer/db';
import { isTemplated, validationError, type EmailDraft, type EmailRequest } from '@mailer/domain';
import { renderTemplateContent } from '../../templates/render-template-content';

/**
 * The messages of a request with every templated one rendered from the account's template as
 * it now is (docs/api-decisions.md, "Templates"): what is accepted is what is delivered, and the
 * message records the template's id and version. A template that is not the account's is a
 * validation error pointing at the reference; `path` prefixes a batch item's details.
 */
export async function renderTemplatedDrafts(db: Queryable, accountId: string, requests: readonly EmailRequest[], path: (index: number, field: string) => string): Promise<EmailDraft[]> {
  if (!requests.some(isTemplated)) return requests as EmailDraft[];
  return Promise.all(
    requests.map(async (request, index): Promise<EmailDraft> => {
      if (!isTemplated(request)) return request;
      const { reference, variables } = request.template;
      const template = await findTemplate(db, accountId, reference);
      if (!template) {
        const field = 'id' in reference ? 'id' : 'alias';
        throw validationError([{ path: path(index, `template.${field}`), message: `no template with this ${field} exists in this account` }]);
      }
      const rendered = renderTemplateContent(template, variables, path(index, 'template.variables'));
      return { ...request, ...rendered, template: { id: template.id, version: template.version } };
    }),
  );
}
