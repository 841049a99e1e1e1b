import { AppError, DELIVERY_STATUSES, isIdOf, parseMailbox, parseRfc3339, parseTagFilter, RFC_3339_RULE, validationError, type DeliveryStatus, type ErrorDetail } from '@mailer/domain';
import { type EmailSearchFilters, findEmailForOperator, searchEmails, toOperatorEmail } from '@mailer/operations';
import { decodeCursor, toPage } from '../../http/pagination';
import { field, type ConsoleContext, type ConsoleRoute } from '../console-route';
import { html } from '../html';
import { CONSOLE_PATH, page, table, when } from '../layout';
import { accountPath } from './accounts';

const PAGE_SIZE = 50;
const emailPath = (id: string) => `${CONSOLE_PATH}/emails/${encodeURIComponent(id)}`;
const SEARCH_FIELDS = ['account', 'recipient', 'status', 'tag', 'created_after', 'created_before'] as const;

/** The search's filters from the query, or a validation error naming each bad field. */
function searchFilters(c: ConsoleContext): EmailSearchFilters {
  const problems: ErrorDetail[] = [];
  const filters: EmailSearchFilters = {};
  const account = field(c.query, 'account');
  if (account !== undefined) filters.accountId = account;
  const recipient = field(c.query, 'recipient');
  if (recipient !== undefined) {
    const mailbox = parseMailbox(recipient);
    if (mailbox) filters.recipientKey = mailbox.key;
    else problems.push({ path: 'recipient', message: 'must be an email address' });
  }
  const status = field(c.query, 'status');
  if (status !== undefined) {
    if ((DELIVERY_STATUSES as readonly string[]).includes(status)) filters.status = status as DeliveryStatus;
    else problems.push({ path: 'status', message: `must be one of: ${DELIVERY_STATUSES.join(', ')}` });
  }
  const tag = field(c.query, 'tag');
  if (tag !== undefined) {
    const parsed = parseTagFilter(tag);
    if (parsed) filters.tag = parsed;
    else problems.push({ path: 'tag', message: 'must be name:value' });
  }
  for (const [name, key] of [['created_after', 'createdAfter'], ['created_before', 'createdBefore']] as const) {
    const raw = field(c.query, name);
    if (raw === undefined) continue;
    const instant = parseRfc3339(raw);
    if (instant) filters[key] = instant;
    else problems.push({ path: name, message: RFC_3339_RULE });
  }
  if (problems.length > 0) throw validationError(problems, problems.map((p) => `${p.path} ${p.message}`).join('; ') + '.');
  return filters;
}

function searchForm(c: ConsoleContext) {
  const value = (name: string) => field(c.query, name) ?? '';
  return html`<form method="get" action="${CONSOLE_PATH}/emails" class="grid" role="search">
<label for="q-id">Message id</label><input id="q-id" name="id" placeholder="em_…" value="${value('id')}">
<label for="q-account">Account</label><input id="q-account" name="account" placeholder="acc_…" value="${value('account')}">
<label for="q-recipient">To or cc recipient</label><input id="q-recipient" name="recipient" type="email" value="${value('recipient')}">
<label for="q-status">Status</label><select id="q-status" name="status"><option value="">any</option>${DELIVERY_STATUSES.map(
    (s) => html`<option${s === value('status') ? html` selected` : ''}>${s}</option>`,
  )}</select>
<label for="q-tag">Tag (name:value)</label><input id="q-tag" name="tag" value="${value('tag')}">
<label for="q-after">Created after (RFC 3339)</label><input id="q-after" name="created_after" placeholder="2026-01-31T00:00:00Z" value="${value('created_after')}">
<label for="q-before">Created before (RFC 3339)</label><input id="q-before" name="created_before" value="${value('created_before')}">
<button type="submit">Search</button></form>`;
}

/** Marks a test message (docs/api-decisions.md, "Test mode") wherever the console shows one. */
const testMark = html` <strong class="test-mark">test</strong>`;

const searchEmailsPage: ConsoleRoute = {
  method: 'get',
  path: '/emails',
  title: 'Emails',
  async handle(c) {
    const id = field(c.query, 'id');
    if (id !== undefined) {
      if (!isIdOf('email', id)) throw new AppError('email_not_found', `No message with id ${id}.`);
      return c.res.redirect(303, emailPath(id));
    }
    const filters = searchFilters(c);
    const scope = `console-emails:${JSON.stringify(SEARCH_FIELDS.map((name) => field(c.query, name) ?? null))}`;
    const position = decodeCursor(c.deps.cursors, scope, field(c.query, 'cursor'));
    const found = toPage(c.deps.cursors, scope, await searchEmails(c.deps.db, filters, position, PAGE_SIZE + 1), PAGE_SIZE);
    const next = new URLSearchParams(Object.entries(c.query).filter((e): e is [string, string] => e[1] !== undefined && e[0] !== 'cursor'));
    if (found.nextCursor) next.set('cursor', found.nextCursor);
    return page(
      c.session,
      'Emails',
      html`${searchForm(c)}
${table(
  'Messages found, newest first',
  ['Message', 'Account', 'Status', 'To', 'Cc', 'BCC', 'Subject', 'Created'],
  found.rows.map((e) => [
    html`<a href="${emailPath(e.id)}">${e.id}</a>${e.test ? testMark : ''}`,
    html`<a href="${accountPath(e.accountId)}">${e.accountId}</a>`,
    e.status,
    e.to.join(', '),
    e.cc.join(', '),
    e.bccCount,
    e.subject,
    when(e.createdAt),
  ]),
  'No message matches.',
)}
${found.nextCursor ? html`<p><a href="${CONSOLE_PATH}/emails?${next.toString()}">Older messages</a></p>` : ''}`,
    );
  },
};

const replyText = (reply: { code: number | null; enhanced_status: string | null; text: string } | null) =>
  reply ? [reply.code, reply.enhanced_status, reply.text].filter((part) => part !== null).join(' ') : '—';

const emailPage: ConsoleRoute = {
  method: 'get',
  path: '/emails/:emailId',
  title: 'Email',
  async handle(c) {
    const detail = await findEmailForOperator(c.deps.db, c.params.emailId!);
    if (!detail) throw new AppError('email_not_found', `No message with id ${c.params.emailId}.`);
    const e = toOperatorEmail(detail);
    return page(
      c.session,
      `Email ${e.id}`,
      html`<dl class="facts">
<dt>Account</dt><dd><a href="${accountPath(e.account_id)}">${e.account_id}</a></dd>
<dt>Mode</dt><dd>${e.test ? html`${testMark} sent with the test key: simulated, never delivered` : 'live'}</dd>
<dt>Status</dt><dd>${e.status}${e.cause ? ` (${e.cause.code})` : ''}</dd>
<dt>From</dt><dd>${e.from}</dd><dt>Subject</dt><dd>${e.subject}</dd>
<dt>To</dt><dd>${e.to.join(', ') || '—'}</dd><dt>Cc</dt><dd>${e.cc.join(', ') || '—'}</dd><dt>BCC recipients</dt><dd>${e.bcc_count}</dd>
<dt>Tags</dt><dd>${Object.entries(e.tags).map(([k, v]) => `${k}:${v}`).join(', ') || '—'}</dd>
<dt>Template</dt><dd>${e.template ? html`<a href="${accountPath(e.account_id)}/templates">${e.template.id}</a> version ${e.template.version}` : '—'}</dd>
<dt>Created</dt><dd>${e.created_at}</dd>
</dl>
<h2>Deliveries</h2>
${table(
  'One per recipient',
  ['Recipient', 'Kind', 'Status', 'Attempts', 'Cause', 'Updated'],
  e.deliveries.map((d) => [d.recipient, d.kind, d.status, d.attempt_count, d.cause?.code ?? '—', d.updated_at]),
)}
<h2>Attempts</h2>
${table(
  'Each SMTP transaction, with what the transport saw (operators only)',
  ['#', 'Started', 'Outcome', 'Recipients', 'MX host', 'MX address', 'Reply', 'TLS', 'TLS policy'],
  e.attempts.map((a) => [
    a.number,
    a.started_at,
    a.outcome,
    [...a.recipients, ...(a.bcc_recipients > 0 ? [`${a.bcc_recipients} BCC`] : [])].join(', '),
    a.mx_host ?? '—',
    a.mx_address ?? '—',
    replyText(a.reply),
    a.tls ? `${a.tls.version} ${a.tls.cipher ?? ''}${a.tls.certificate_verified ? ', certificate verified' : ''}` : 'none',
    a.tls_policy ?? '—',
  ]),
  'No attempt yet.',
)}
<h2>Events</h2>
${table('In order', ['Type', 'At', 'Recipient', 'Cause'], e.events.map((ev) => [ev.type, ev.at, ev.recipient ?? '—', ev.cause?.code ?? '—']))}`,
    );
  },
};

export const emailRoutes: ConsoleRoute[] = [searchEmailsPage, emailPage];
