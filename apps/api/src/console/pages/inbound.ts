import { listInboundEmails } from '@mailer/operations';
import { requireInboundEmail } from '../../routes/inbound/inbound-lookup';
import type { ConsoleRoute } from '../console-route';
import { html } from '../html';
import { page, table, when } from '../layout';
import { accountPath, requireAccount } from './accounts';
import { LIST_LIMIT } from './domains';

/** The account's received mail (docs/api-decisions.md, "Inbound mail"), newest first. */
const listInboundPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/inbound',
  title: 'Received mail',
  async handle(c) {
    const account = await requireAccount(c);
    const base = `${accountPath(account.id)}/inbound`;
    const rows = await listInboundEmails(c.deps.db, account.id, {}, undefined, LIST_LIMIT);
    return page(
      c.session,
      `Mail received by ${account.name}`,
      table(
        `Received messages (newest ${LIST_LIMIT})`,
        ['Message', 'Received', 'From', 'Recipients', 'Subject', 'DKIM', 'SPF', 'DMARC'],
        rows.map((e) => [
          html`<a href="${base}/${e.id}">${e.id}</a>`,
          when(e.createdAt),
          e.message.from ?? '—',
          e.recipients.join(', '),
          e.message.subject ?? '—',
          String(e.auth.dkim.result),
          String(e.auth.spf.result),
          String(e.auth.dmarc.result),
        ]),
        'No message received.',
      ),
    );
  },
};

/** One received message: envelope, headers, authentication and attachments; its text, never rendered as HTML. */
const inboundEmailPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/inbound/:emailId',
  title: 'Received mail',
  async handle(c) {
    const account = await requireAccount(c);
    const email = await requireInboundEmail(c.deps.db, account.id, c.params.emailId ?? '');
    const { message, auth } = email;
    return page(
      c.session,
      `Received ${email.id}`,
      html`<dl class="facts"><dt>Received</dt><dd>${when(email.createdAt)}</dd><dt>Route</dt><dd><code>${email.routeId}</code></dd>
<dt>MAIL FROM</dt><dd>${email.mailFrom || '<>'}</dd><dt>Recipients</dt><dd>${email.recipients.join(', ')}</dd>
<dt>From</dt><dd>${message.from ?? '—'}</dd><dt>Subject</dt><dd>${message.subject ?? '—'}</dd><dt>Size</dt><dd>${String(email.size)} bytes</dd>
<dt>SPF</dt><dd>${String(auth.spf.result)}</dd><dt>DKIM</dt><dd id="inbound-dkim">${String(auth.dkim.result)}</dd>
<dt>DMARC</dt><dd>${String(auth.dmarc.result)}</dd><dt>ARC</dt><dd>${String(auth.arc.result)}</dd></dl>
${table('Attachments', ['Id', 'File name', 'Type', 'Bytes', 'Content-ID'], message.attachments.map((a) => [a.id, a.filename ?? '—', a.content_type, String(a.size), a.content_id ?? '—']), 'No attachment.')}
${table('Header fields, in order', ['Name', 'Value'], message.headers.map((h) => [h.name, h.value]))}
<h2>Text</h2><pre>${message.text ?? '—'}</pre>`,
    );
  },
};

export const inboundRoutes: ConsoleRoute[] = [listInboundPage, inboundEmailPage];
