import {
  ACCOUNT_NAME_RULE,
  AppError,
  EMAIL_TYPES,
  MAX_SENDING_REASON_LENGTH,
  normalizeAccountName,
  normalizeOneLineText,
  oneLineTextRule,
  parsePlanLimit,
  PLAN_LIMIT_RULE,
  SCOPES,
  validationError,
  type EmailType,
  type Scope,
} from '@mailer/domain';
import {
  accountSendingState,
  createAccount,
  createManagementKey,
  findAccountWithPlan,
  listAccountKeys,
  listAccounts,
  pauseSending,
  type PlanSettings,
  resumeSending,
  revokeKey,
  rotateSendingKey,
  setAccountPlan,
} from '@mailer/operations';
import { field, type ConsoleContext, type ConsoleRoute } from '../console-route';
import { html } from '../html';
import { actionButton, CONSOLE_PATH, csrfField, page, table, when } from '../layout';

const PLAN_FIELDS: { field: keyof PlanSettings; name: string; label: string }[] = [
  { field: 'perMinute', name: 'per_minute', label: 'Recipient-emails per minute' },
  { field: 'perHour', name: 'per_hour', label: 'Recipient-emails per hour' },
  { field: 'perDay', name: 'per_day', label: 'Recipient-emails per day' },
  { field: 'per30Days', name: 'per_30_days', label: 'Recipient-emails per 30 days' },
  { field: 'maxActive', name: 'max_active', label: 'Active deliveries at once' },
  { field: 'maxDomains', name: 'max_domains', label: 'Active domains' },
  { field: 'maxWebhookEndpoints', name: 'max_webhook_endpoints', label: 'Webhook endpoints' },
  { field: 'maxTemplates', name: 'max_templates', label: 'Templates' },
];

export const accountPath = (id: string) => `${CONSOLE_PATH}/accounts/${encodeURIComponent(id)}`;

export async function requireAccount(c: ConsoleContext) {
  const account = await findAccountWithPlan(c.deps.db, c.params.accountId!);
  if (!account) throw new AppError('not_found', `No account with id ${c.params.accountId}.`);
  return account;
}

/** The page that shows newly issued keys: they are never shown again. */
function issuedKeys(c: ConsoleContext, title: string, accountId: string, keys: { label: string; key: string }[]) {
  return page(
    c.session,
    title,
    html`<p role="status">Store these now: they are not shown again.</p>
<dl>${keys.map((k) => html`<dt>${k.label}</dt><dd><code id="key-${k.label.replace(/\W+/g, '-').toLowerCase()}">${k.key}</code> <button type="button" data-copy="${k.key}">Copy</button></dd>`)}</dl>
<p><a href="${accountPath(accountId)}">Back to the account</a></p>`,
  );
}

const listAccountsPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts',
  title: 'Accounts',
  async handle(c) {
    const accounts = await listAccounts(c.deps.db);
    return page(
      c.session,
      'Accounts',
      html`<form method="post" action="${CONSOLE_PATH}/accounts" class="row">${csrfField(c.session)}
<label for="account-name">New account's name</label><input id="account-name" name="name" required maxlength="200">
<button type="submit">Create account</button></form>
${table(
  'Every account, oldest first',
  ['Account', 'Name', 'Plan', 'Created'],
  accounts.map((a) => [html`<a href="${accountPath(a.id)}">${a.id}</a>`, a.name, a.plan, when(a.createdAt)]),
  'No accounts yet.',
)}`,
    );
  },
};

const createAccountChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts',
  title: 'Accounts',
  async handle(c) {
    const name = normalizeAccountName(field(c.form, 'name') ?? '');
    if (name === undefined) throw validationError([{ path: 'name', message: ACCOUNT_NAME_RULE }], `The name ${ACCOUNT_NAME_RULE}.`);
    const created = await createAccount(c.deps.db, name);
    return issuedKeys(c, `Created account ${created.account.name}`, created.account.id, [
      { label: 'Account', key: created.account.id },
      { label: 'Sending key', key: created.sending_key },
      { label: 'Test key', key: created.test_sending_key },
      { label: 'Management key', key: created.management_key },
    ]);
  },
};

const accountPage: ConsoleRoute = {
  method: 'get',
  path: '/accounts/:accountId',
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    const [keys, sending] = await Promise.all([listAccountKeys(c.deps.db, account.id), accountSendingState(c.deps.db, account.id, c.deps.now())]);
    const base = accountPath(account.id);
    return page(
      c.session,
      `${account.name}`,
      html`<p><code>${account.id}</code>, created ${when(account.createdAt)}, plan ${account.plan} (<code>${account.planId}</code>)</p>
<nav aria-label="Account"><a href="${base}/domains">Domains and senders</a> <a href="${CONSOLE_PATH}/emails?account=${account.id}">Emails</a>
<a href="${base}/suppressions">Suppressions</a> <a href="${base}/webhooks">Webhooks</a> <a href="${base}/templates">Templates</a> <a href="${base}/inbound">Received mail</a></nav>
<h2>Sending and reputation</h2>
${sending
  ? table(
      'Each stream has its own status and rates',
      ['Stream', 'Status', 'Since', 'Reason', 'Bounce rate (24 h)', 'Complaint rate (24 h)'],
      EMAIL_TYPES.map((stream) => {
        const state = sending[stream];
        return [stream, html`<span id="sending-status-${stream}">${state.status}</span>`, state.since, state.reason ?? '—', percent(state.bounce_rate), percent(state.complaint_rate)];
      }),
    )
  : ''}
<form method="post" action="${base}/pause" class="row">${csrfField(c.session)}
<label for="sending-stream">Stream</label><select id="sending-stream" name="stream"><option value="">Both</option>${EMAIL_TYPES.map((stream) => html`<option value="${stream}">${stream}</option>`)}</select>
<label for="sending-reason">Reason</label><input id="sending-reason" name="reason" required maxlength="${MAX_SENDING_REASON_LENGTH}">
<button type="submit">Pause sending</button><button type="submit" formaction="${base}/resume">Resume sending</button></form>
<h2>Keys</h2>
${table(
  'Keys, revoked ones included (never a key itself)',
  ['Key', 'Kind', 'Scopes', 'Created', 'Revoked', ''],
  keys.map((k) => [
    html`<code>${k.id}</code>`,
    k.test ? 'sending (test)' : k.kind,
    k.scopes.join(', '),
    when(k.createdAt),
    when(k.revokedAt),
    k.revokedAt ? '' : actionButton(c.session, `${base}/keys/${k.id}/revoke`, `Revoke ${k.id}`, {}, `Revoke ${k.id}? It stops working at once.`),
  ]),
)}
${actionButton(c.session, `${base}/rotate-sending-key`, 'Rotate the sending key', {}, 'Issue a new sending key? The current one stops working at once.')}
<form method="post" action="${base}/keys">${csrfField(c.session)}
<fieldset><legend>New management key: its scopes</legend>
${SCOPES.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`)}
</fieldset><button type="submit">Create management key</button></form>
<h2>Plan</h2>
<form method="post" action="${base}/plan" class="grid">${csrfField(c.session)}
${PLAN_FIELDS.map((f) => html`<label for="plan-${f.name}">${f.label}</label><input id="plan-${f.name}" name="${f.name}" inputmode="numeric" value="${account.limits[f.field]}" required>`)}
<button type="submit">Save plan</button></form>`,
    );
  },
};

const percent = (rate: number) => `${Number((rate * 100).toFixed(3))} %`;

/** The reason of a pause or resume, by the CLI's rule. */
function sendingReason(c: ConsoleContext): string {
  const reason = normalizeOneLineText(field(c.form, 'reason') ?? '', MAX_SENDING_REASON_LENGTH);
  if (reason === undefined) {
    const rule = oneLineTextRule(MAX_SENDING_REASON_LENGTH);
    throw validationError([{ path: 'reason', message: rule }], `The reason ${rule}.`);
  }
  return reason;
}

/** The streams a pause or resume acts on: the one chosen, else both. */
function sendingStreams(c: ConsoleContext): readonly EmailType[] {
  const chosen = field(c.form, 'stream') ?? '';
  if (chosen === '') return EMAIL_TYPES;
  const stream = EMAIL_TYPES.find((s) => s === chosen);
  if (!stream) throw validationError([{ path: 'stream', message: `must be one of: ${EMAIL_TYPES.join(', ')}` }], 'No such stream.');
  return [stream];
}

/** Pause or resume the account's sending, of one stream or both, with the operator's reason (the CLI's `account pause` and `account resume`). */
const sendingChange = (
  verb: 'pause' | 'resume',
  run: (c: ConsoleContext, accountId: string, reason: string, streams: readonly EmailType[]) => Promise<unknown>,
): ConsoleRoute => ({
  method: 'post',
  path: `/accounts/:accountId/${verb}`,
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    await run(c, account.id, sendingReason(c), sendingStreams(c));
    c.res.redirect(303, accountPath(account.id));
  },
});

const pauseSendingChange = sendingChange('pause', (c, id, reason, streams) => pauseSending(c.deps.db, id, reason, c.deps.now(), streams));
const resumeSendingChange = sendingChange('resume', (c, id, reason, streams) => resumeSending(c.deps.db, c.deps.deliveryQueue, id, reason, c.deps.now(), streams));

const createKeyChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/keys',
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    const raw = c.form.scopes;
    const chosen = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    if (chosen.length === 0) throw validationError([{ path: 'scopes', message: `choose at least one of: ${SCOPES.join(', ')}` }], 'Choose at least one scope.');
    const created = await createManagementKey(c.deps.db, account.id, chosen);
    return issuedKeys(c, `Created management key ${created.id}`, account.id, [{ label: 'Management key', key: created.key }]);
  },
};

const revokeKeyChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/keys/:keyId/revoke',
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    const owned = (await listAccountKeys(c.deps.db, account.id)).some((k) => k.id === c.params.keyId);
    if (!owned || !(await revokeKey(c.deps.db, c.params.keyId!, c.deps.now()))) throw new AppError('not_found', `No active key ${c.params.keyId} in this account.`);
    c.res.redirect(303, accountPath(account.id));
  },
};

const rotateSendingKeyChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/rotate-sending-key',
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    const key = await rotateSendingKey(c.deps.db, account.id, c.deps.now());
    return issuedKeys(c, 'New sending key', account.id, [{ label: 'Sending key', key }]);
  },
};

const setPlanChange: ConsoleRoute = {
  method: 'post',
  path: '/accounts/:accountId/plan',
  title: 'Account',
  async handle(c) {
    const account = await requireAccount(c);
    const limits: Partial<PlanSettings> = {};
    const problems: { path: string; message: string }[] = [];
    for (const f of PLAN_FIELDS) {
      const value = parsePlanLimit(field(c.form, f.name) ?? '');
      if (value === undefined) problems.push({ path: f.name, message: PLAN_LIMIT_RULE });
      else limits[f.field] = value;
    }
    if (problems.length > 0) throw validationError(problems, `${problems.map((p) => p.path).join(', ')}: ${PLAN_LIMIT_RULE}.`);
    await setAccountPlan(c.deps.db, account.id, limits);
    c.res.redirect(303, accountPath(account.id));
  },
};

export const accountRoutes: ConsoleRoute[] = [
  listAccountsPage,
  createAccountChange,
  accountPage,
  pauseSendingChange,
  resumeSendingChange,
  createKeyChange,
  revokeKeyChange,
  rotateSendingKeyChange,
  setPlanChange,
];
