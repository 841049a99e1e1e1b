import { listDomains, listSenders } from '@mailer/db';
import { normalizeDomainName, requiredDnsRecords, validationError } from '@mailer/domain';
import { checkDomainDns, createDomain, serializeDomain } from '@mailer/operations';
import { domainNotFound, requireDomain, requireDomainView } from '../../routes/domains/domain-lookup';
import { field, type ConsoleRoute } from '../console-route';
import { html } from '../html';
import { actionButton, csrfField, page, table, when } from '../layout';
import { accountPath, requireAccount } from './accounts';

/** Lists show this many rows, newest first; the API and the CLI page through the rest. */
export const LIST_LIMIT = 100;

const domainPath = (accountId: string, domainId: string) => `${accountPath(accountId)}/domains/${encodeURIComponent(domainId)}`;

const listDomainsPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/domains',
  title: 'Domains',
  async handle(c) {
    const account = await requireAccount(c);
    const domains = (await listDomains(c.deps.db, account.id, { limit: LIST_LIMIT })).map(serializeDomain);
    return page(
      c.session,
      `Domains of ${account.name}`,
      html`<form method="post" action="${accountPath(account.id)}/domains" class="row">${csrfField(c.session)}
<label for="domain-name">New domain</label><input id="domain-name" name="name" required placeholder="example.com">
<button type="submit">Add domain</button></form>
${table(
        `The account's domains (newest ${LIST_LIMIT})`,
        ['Domain', 'Status', 'Ownership', 'DKIM', 'DMARC', 'Return path', 'Senders'],
        domains.map((d) => [
          html`<a href="${domainPath(account.id, d.id)}">${d.name}</a>`,
          d.status,
          d.ownership.status,
          d.dkim.status,
          d.dmarc.status,
          d.return_path.status,
          d.sender_count,
        ]),
        'No domains.',
      )}`,
    );
  },
};

const createDomainChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/domains',
  title: 'Domains',
  async handle(c) {
    const account = await requireAccount(c);
    const name = normalizeDomainName(field(c.form, 'name') ?? '');
    if (!name.ok) throw validationError([{ path: 'name', message: name.message }], `The domain name ${name.message}.`);
    const { domain } = await createDomain(c.deps.db, c.deps.config.encryptionKey, account.id, { name: name.value, externalId: null }, c.deps.now);
    c.res.redirect(303, domainPath(account.id, domain.id));
  },
};

const domainPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId/domains/:domainId',
  title: 'Domain',
  async handle(c) {
    const account = await requireAccount(c);
    const domain = serializeDomain(await requireDomainView(c.deps.db, account.id, c.params.domainId!));
    const records = requiredDnsRecords(await requireDomain(c.deps.db, account.id, domain.id), c.deps.config.returnPath);
    const senders = await listSenders(c.deps.db, domain.id, undefined, LIST_LIMIT);
    return page(
      c.session,
      domain.name,
      html`<p><a href="${accountPath(account.id)}">${account.name}</a> · <code>${domain.id}</code> · <strong id="domain-status">${domain.status}</strong>,
last check ${domain.last_check ? `${domain.last_check.status} at ${domain.last_check.completed_at}` : 'never'}</p>
${table('Each component', ['Component', 'Status'], [
  ['Ownership', domain.ownership.status],
  ['DKIM', domain.dkim.status],
  ['DMARC', domain.dmarc.status],
  ['Return path', domain.return_path.status],
])}
${actionButton(c.session, `${domainPath(account.id, domain.id)}/check`, 'Check DNS now')}
<h2>DNS records to publish</h2>
${table(
  'Records',
  ['Purpose', 'Type', 'Name', 'Value'],
  records.map((r) => [
    r.purpose,
    r.type,
    html`<code>${r.name}</code> <button type="button" data-copy="${r.name}" aria-label="Copy the ${r.purpose} record's name">Copy</button>`,
    html`<code class="wrap">${r.value}</code> <button type="button" data-copy="${r.value}" aria-label="Copy the ${r.purpose} record's value">Copy</button>`,
  ]),
)}
<h2>Senders</h2>
${table(
  `Senders (newest ${LIST_LIMIT})`,
  ['Sender', 'Address', 'Display name', 'Transport security', 'Created'],
  senders.map((s) => [html`<code>${s.id}</code>`, s.email, s.displayName ?? '—', s.transportSecurityPolicy, when(s.createdAt)]),
  'No senders.',
)}`,
    );
  },
};

const checkDomainChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/domains/:domainId/check',
  title: 'Domain',
  async handle(c) {
    const account = await requireAccount(c);
    const domain = await requireDomain(c.deps.db, account.id, c.params.domainId!);
    if (!(await checkDomainDns(c.deps.db, c.deps.dns, c.deps.config.returnPath, domain, c.deps.now))) throw domainNotFound();
    c.res.redirect(303, domainPath(account.id, domain.id));
  },
};

export const domainRoutes: ConsoleRoute[] = [listDomainsPage, createDomainChange, domainPage, checkDomainChange];
