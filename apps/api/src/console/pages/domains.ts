import { DEFAULT_TRANSPORT_SECURITY_POLICY, normalizeDomainName, PROVIDER_REQUIREMENTS, TRANSPORT_SECURITY_POLICIES, validationError } from '@mailer/domain';
import { addSender, checkDomainDns, createDomain, domainCompliance, domainNotFound, listDomains, listSenders, serializeDomain } from '@mailer/operations';
import { validateBody } from '../../http/route';
import { domainDnsRecords } from '../../routes/domains/domain-dns-records';
import { requireDomain, requireDomainView } from '../../routes/domains/domain-lookup';
import { createSenderBodySchema } from '../../routes/senders/create-sender.schema';
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
        ['Domain', 'Status', 'Ownership', 'DKIM', 'DKIM Ed25519', 'DMARC', 'Return path', 'Senders'],
        domains.map((d) => [
          html`<a href="${domainPath(account.id, d.id)}">${d.name}</a>`,
          d.status,
          d.ownership.status,
          d.dkim.status,
          d.dkim_ed25519.status,
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
    const row = await requireDomain(c.deps.db, account.id, domain.id);
    const [{ records, warnings }, compliance, senders] = await Promise.all([
      domainDnsRecords(c.deps, row),
      domainCompliance(c.deps, row),
      listSenders(c.deps.db, domain.id, undefined, LIST_LIMIT),
    ]);
    return page(
      c.session,
      domain.name,
      html`<p><a href="${accountPath(account.id)}">${account.name}</a> · <code>${domain.id}</code> · <strong id="domain-status">${domain.status}</strong>,
last check ${domain.last_check ? `${domain.last_check.status} at ${domain.last_check.completed_at}` : 'never'}</p>
${table('Each component', ['Component', 'Status'], [
  ['Ownership', domain.ownership.status],
  ['DKIM', domain.dkim.status],
  ['DKIM Ed25519', domain.dkim_ed25519.status],
  ['DMARC', domain.dmarc.status],
  ['Return path', domain.return_path.status],
])}
${actionButton(c.session, `${domainPath(account.id, domain.id)}/check`, 'Check DNS now')}
<h2>DNS records to publish</h2>
${warnings.map((w) => html`<p class="error" role="note">${w.message} <code>${w.code}</code></p>`)}
${table(
  'Records',
  ['Purpose', 'Type', 'Name', 'Value', 'State'],
  records.map((r) => [
    r.purpose,
    r.type,
    html`<code>${r.name}</code> <button type="button" data-copy="${r.name}" aria-label="Copy the ${r.purpose} record's name${r.state ? ` (${r.state})` : ''}">Copy</button>`,
    html`<code class="wrap">${r.value}</code> <button type="button" data-copy="${r.value}" aria-label="Copy the ${r.purpose} record's value${r.state ? ` (${r.state})` : ''}">Copy</button>`,
    r.state ? `${r.state}${r.retiring_until ? ` until ${r.retiring_until}` : ''}` : '—',
  ]),
)}
<h2>Mailbox providers' rules</h2>
${table(
  "Mailbox providers' requirements (GET /v1/domains/{id}/compliance)",
  ['Provider', 'Requirement', 'Status', 'Reason'],
  compliance.flatMap((p) => p.requirements.map((r) => [PROVIDER_REQUIREMENTS[p.provider].label, r.requirement, html`<strong>${r.status}</strong>`, r.reason])),
)}
<h2>Senders</h2>
${table(
  `Senders (newest ${LIST_LIMIT})`,
  ['Sender', 'Address', 'Display name', 'Transport security', 'Created'],
  senders.map((s) => [html`<code>${s.id}</code>`, s.email, s.displayName ?? '—', s.transportSecurityPolicy, when(s.createdAt)]),
  'No senders.',
)}
<form method="post" action="${domainPath(account.id, domain.id)}/senders" class="grid">${csrfField(c.session)}
<label for="sender-email">New sender's address</label><input id="sender-email" name="email" type="email" required placeholder="hello@${domain.name}">
<label for="sender-name">Display name (optional)</label><input id="sender-name" name="display_name">
<label for="sender-policy">Transport security</label><select id="sender-policy" name="transport_security_policy">${TRANSPORT_SECURITY_POLICIES.map(
  (p) => html`<option${p === DEFAULT_TRANSPORT_SECURITY_POLICY ? html` selected` : ''}>${p}</option>`,
)}</select>
<button type="submit">Add sender</button></form>`,
    );
  },
};

const addSenderChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/domains/:domainId/senders',
  title: 'Domain',
  async handle(c) {
    const account = await requireAccount(c);
    const domain = await requireDomain(c.deps.db, account.id, c.params.domainId!);
    // The fields of POST /v1/domains/{id}/senders, checked by its schema.
    const input = validateBody(createSenderBodySchema, {
      email: field(c.form, 'email') ?? '',
      transport_security_policy: field(c.form, 'transport_security_policy'),
      ...(field(c.form, 'display_name') === undefined ? {} : { display_name: field(c.form, 'display_name') }),
    });
    await addSender(c.deps.db, domain, { email: input.email, displayName: input.display_name ?? null, transportSecurityPolicy: input.transport_security_policy }, c.deps.now());
    c.res.redirect(303, domainPath(account.id, domain.id));
  },
};

const checkDomainChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/domains/:domainId/check',
  title: 'Domain',
  async handle(c) {
    const account = await requireAccount(c);
    const domain = await requireDomain(c.deps.db, account.id, c.params.domainId!);
    if (!(await checkDomainDns(c.deps.db, c.deps.dns, c.deps.config.returnPath, c.deps.config.encryptionKey, domain, c.deps.now))) throw domainNotFound();
    c.res.redirect(303, domainPath(account.id, domain.id));
  },
};

export const domainRoutes: ConsoleRoute[] = [listDomainsPage, createDomainChange, domainPage, addSenderChange, checkDomainChange];
