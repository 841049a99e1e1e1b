import { AppError, sampleVariables } from '@mailer/domain';
import { listTemplates, renderTemplateContent, type Template } from '@mailer/operations';
import type { ConsoleRoute } from '../console-route';
import { html } from '../html';
import { page, table, when } from '../layout';
import { accountPath, requireAccount } from './accounts';
import { LIST_LIMIT } from './domains';

/**
 * A template rendered with sample variables (sampleVariables), as intake would render it: the
 * subject, the plain part and the HTML markup, shown as text (the console frames nothing).
 */
function preview(template: Template) {
  try {
    const rendered = renderTemplateContent(template, sampleVariables(template.variables), 'variables');
    return html`<section aria-label="Preview of ${template.name}"><h3>${template.name}</h3>
<p>Subject: <strong>${rendered.subject}</strong></p>
<pre class="preview-text">${rendered.text}</pre>
${rendered.html === null ? '' : html`<details><summary>HTML of ${template.name}</summary><pre class="preview-html">${rendered.html}</pre></details>`}</section>`;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return html`<section aria-label="Preview of ${template.name}"><h3>${template.name}</h3><p role="status">No preview: ${error.code}, ${error.details?.[0]?.message ?? error.message}</p></section>`;
  }
}

const listTemplatesPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/templates',
  title: 'Templates',
  async handle(c) {
    const account = await requireAccount(c);
    const templates = await listTemplates(c.deps.db, account.id, undefined, LIST_LIMIT);
    return page(
      c.session,
      `Templates of ${account.name}`,
      html`<p><a href="${accountPath(account.id)}">${account.name}</a></p>
${table(
  `Templates (newest ${LIST_LIMIT})`,
  ['Template', 'Name', 'Alias', 'Version', 'Variables', 'Updated'],
  templates.map((t) => [html`<code>${t.id}</code>`, t.name, t.alias ?? '—', t.version, t.variables.join(', ') || '—', when(t.updatedAt)]),
  'No templates.',
)}
${templates.length > 0 ? html`<h2>Previews with sample variables</h2>${templates.map(preview)}` : ''}`,
    );
  },
};

export const templateRoutes: ConsoleRoute[] = [listTemplatesPage];
