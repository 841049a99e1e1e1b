import type { ConsoleSession } from './console-sessions';
import { html, type HtmlValue, type SafeHtml } from './html';

export const CONSOLE_PATH = '/console';
/** The console's stylesheet and script, served by the API itself (docs/api-decisions.md, "Operator console"). */
export const ASSET_PATH = `${CONSOLE_PATH}/assets`;

/** The hidden field every change sends back (docs/api-decisions.md, "Operator console"). */
export const csrfField = (session: ConsoleSession) => html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;

/** A form with one button that posts a change, e.g. revoke or redeliver. */
export function actionButton(session: ConsoleSession, action: string, label: string, fields: Record<string, string> = {}, confirm?: string): SafeHtml {
  return html`<form method="post" action="${action}" class="inline"${confirm ? html` data-confirm="${confirm}"` : ''}>${csrfField(session)}${Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button type="submit">${label}</button></form>`;
}

function shell(title: string, body: HtmlValue): SafeHtml {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Mailer console</title>
<link rel="stylesheet" href="${ASSET_PATH}/console.css">
<script src="${ASSET_PATH}/console.js" defer></script>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A signed-in page: the navigation, the title, any error of the request, the content. */
export function page(session: ConsoleSession, title: string, content: HtmlValue, error?: { code: string; message: string }): SafeHtml {
  return shell(
    title,
    html`<header>
<nav aria-label="Console">
<a href="${CONSOLE_PATH}/accounts">Accounts</a>
<a href="${CONSOLE_PATH}/emails">Emails</a>
<a href="${CONSOLE_PATH}/destinations">Destinations</a>
<a href="/admin/queues/">Queues (Bull Board)</a>
</nav>
<form method="post" action="${CONSOLE_PATH}/logout" class="inline">${csrfField(session)}<button type="submit">Sign out</button></form>
</header>
<main>
<h1>${title}</h1>
${error ? html`<p class="error" role="alert">${error.message} <code>${error.code}</code></p>` : ''}
${content}
</main>`,
  );
}

export function loginPage(error?: string): SafeHtml {
  return shell(
    'Sign in',
    html`<main class="narrow">
<h1>Mailer console</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<form method="post" action="${CONSOLE_PATH}/login">
<label for="token">Operator token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</main>`,
  );
}

/** A table of rows, with a line saying so when there are none. */
export function table(caption: string, headers: string[], rows: HtmlValue[][], empty = 'None.'): SafeHtml {
  if (rows.length === 0) return html`<p>${empty}</p>`;
  return html`<table><caption>${caption}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table>`;
}

export const when = (date: Date | string | null | undefined) => (date ? (typeof date === 'string' ? date : date.toISOString()) : '—');
