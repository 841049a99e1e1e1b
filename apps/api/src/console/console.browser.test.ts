import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { insertInboundEmails } from '@mailer/db';
import { newId } from '@mailer/domain';
import { readInboundMessage } from '@mailer/message';
import { waitForRedis } from '@mailer/queue';
import { startTestDnsServer, type TestDnsServer } from '@mailer/testing';
import { listenRaw, startTestApi, type TestApi } from '../testing';

const OPERATOR_TOKEN = 'operator-token-for-console-tests';
/** Where the tests write the screenshots of docs/console.md, when set (e.g. `CONSOLE_SCREENSHOTS=docs/console`). */
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let api: TestApi;
let dns: TestDnsServer;
let server: Awaited<ReturnType<typeof listenRaw>>;
let browser: Browser;
let page: Page;
/** Every URL the browser asked for, to show that nothing went to another host. */
const requested: string[] = [];
/** What the pages logged as errors, e.g. a Content-Security-Policy violation. */
const consoleErrors: string[] = [];

beforeAll(async () => {
  dns = await startTestDnsServer();
  api = await startTestApi({ OPERATOR_TOKEN, DNS_SERVERS: dns.address, DNS_TIMEOUT: '300ms' });
  server = await listenRaw(api);
  await waitForRedis(api.deps.redis);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, permissions: ['clipboard-read', 'clipboard-write'] });
  page = await context.newPage();
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await api?.close();
  await dns?.close();
});

/** Every control of the page has a label, and every button a name. */
async function expectLabelledControls() {
  const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (controls) =>
    controls.filter((c) => (c as unknown as { labels: { length: number } }).labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.outerHTML),
  );
  expect(unlabelled).toEqual([]);
  const unnamedButtons = await page.$$eval('button', (buttons) => buttons.filter((b) => !(b.textContent ?? '').trim() && !b.getAttribute('aria-label')).map((b) => b.outerHTML));
  expect(unnamedButtons).toEqual([]);
}

async function screenshot(name: string) {
  // Bull Board's pages are its own.
  if (new URL(page.url()).pathname.startsWith('/console/')) await expectLabelledControls();
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A cell of the table row whose first cell is `first`. */
const cell = (first: string, column: number) =>
  page.locator('tbody tr', { has: page.locator('td:first-child', { hasText: new RegExp(`^${first}$`) }) }).locator('td').nth(column);

// A browser session drives several pages per test; the bound is only against a hang.
jest.setTimeout(120_000);

describe('the operator console in Chromium', () => {
  let accountId: string;
  let managementKey: string;
  let sendingKey: string;

  it('signs in with the operator token, refusing a wrong one', async () => {
    await page.goto(`${server.url}/console`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await screenshot('login');
    await page.getByLabel('Operator token').fill('not-the-operator-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The operator token is not valid.');
    await page.getByLabel('Operator token').fill(OPERATOR_TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/console/accounts');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Accounts');
  });

  it('creates an account and shows its keys once; an invalid name shows the contract message', async () => {
    await page.getByLabel("New account's name").fill('   ');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('must be 1 to 200 characters without control characters');
    expect(await page.getByRole('alert').textContent()).toContain('validation_error');
    await page.getByRole('link', { name: 'Back' }).click();
    // With the keyboard alone: Tab from the page's start reaches the name field, Enter submits.
    await page.locator('body').focus();
    for (let presses = 0; !(await page.getByLabel("New account's name").evaluate((el) => el === el.ownerDocument.activeElement)); presses++) {
      expect(presses).toBeLessThan(10);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('Acme Console');
    await page.keyboard.press('Enter');
    accountId = (await page.locator('dt:has-text("Account") + dd code').textContent())!;
    sendingKey = (await page.locator('dt:has-text("Sending key") + dd code').textContent())!;
    managementKey = (await page.locator('dt:has-text("Management key") + dd code').textContent())!;
    expect(accountId).toMatch(/^acc_/);
    expect((await api.http.get('/v1/domains').set('Authorization', `Bearer ${managementKey}`)).status).toBe(200);
    await page.getByRole('link', { name: 'Back to the account' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Acme Console');
    await screenshot('account');
  });

  it("creates, revokes and rotates the account's keys and sets its plan", async () => {
    await page.getByLabel('domains:read', { exact: true }).check();
    await page.getByRole('button', { name: 'Create management key' }).click();
    const readKey = (await page.locator('dt:has-text("Management key") + dd code').textContent())!;
    expect((await api.http.get('/v1/domains').set('Authorization', `Bearer ${readKey}`)).status).toBe(200);
    expect((await api.http.post('/v1/domains').set('Authorization', `Bearer ${readKey}`).send({ name: 'x.example.test' })).body.error.code).toBe('insufficient_scope');
    await page.getByRole('link', { name: 'Back to the account' }).click();
    const keyId = (await page.locator('tbody tr', { hasText: 'domains:read' }).filter({ hasNotText: 'domains:write' }).locator('code').textContent())!;
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Revoke ${keyId}` }).click();
    await page.getByRole('button', { name: 'Create management key' }).waitFor();
    expect((await api.http.get('/v1/domains').set('Authorization', `Bearer ${readKey}`)).status).toBe(401);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Rotate the sending key' }).click();
    const rotated = (await page.locator('dt:has-text("Sending key") + dd code').textContent())!;
    expect((await api.http.get('/v1/emails').set('Authorization', `Bearer ${sendingKey}`)).status).toBe(401);
    expect((await api.http.get('/v1/emails').set('Authorization', `Bearer ${rotated}`)).status).toBe(200);
    sendingKey = rotated;
    await page.getByRole('link', { name: 'Back to the account' }).click();

    expect(await page.locator('#sending-status-transactional').textContent()).toBe('enabled');
    await page.getByLabel('Reason').fill('Bounce spike under investigation');
    await page.getByRole('button', { name: 'Pause sending' }).click();
    expect(await page.locator('#sending-status-transactional').textContent()).toBe('paused');
    expect(await page.locator('tr', { hasText: 'transactional' }).locator('td').nth(3).textContent()).toBe('Bounce spike under investigation');
    const states = await api.deps.db`select sending_status from account_streams where account_id = ${accountId}`;
    expect(states.map((s) => s.sending_status)).toEqual(['paused', 'paused']);
    await page.getByLabel('Reason').fill('Fixed');
    await page.getByRole('button', { name: 'Resume sending' }).click();
    expect(await page.locator('#sending-status-transactional').textContent()).toBe('enabled');
    // One stream alone.
    await page.getByLabel('Stream').selectOption('broadcast');
    await page.getByLabel('Reason').fill('Digest complaints');
    await page.getByRole('button', { name: 'Pause sending' }).click();
    expect(await page.locator('#sending-status-broadcast').textContent()).toBe('paused');
    expect(await page.locator('#sending-status-transactional').textContent()).toBe('enabled');
    await page.getByLabel('Stream').selectOption('broadcast');
    await page.getByLabel('Reason').fill('Fixed');
    await page.getByRole('button', { name: 'Resume sending' }).click();
    expect(await page.locator('#sending-status-broadcast').textContent()).toBe('enabled');

    await page.getByLabel('Recipient-emails per minute').fill('-1');
    await page.getByRole('button', { name: 'Save plan' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('per_minute: must be a whole number from 0 to 2147483647');
    await page.getByRole('link', { name: 'Back' }).click();
    await page.getByLabel('Recipient-emails per minute').fill('600');
    await page.getByRole('button', { name: 'Save plan' }).click();
    expect(await page.getByLabel('Recipient-emails per minute').inputValue()).toBe('600');
    const [plan] = await api.deps.db`select p.name, p.per_minute from accounts a join plans p on p.id = a.plan_id where a.id = ${accountId}`;
    expect({ ...plan }).toEqual({ name: 'custom', per_minute: 600 });
    await screenshot('account');
  });

  it('adds a domain and makes it ready: the records to publish, then check now', async () => {
    const auth = { Authorization: `Bearer ${managementKey}` };
    const hook = await api.http.post('/v1/webhooks').set(auth).send({ url: 'https://hooks.example.com/console', events: ['domain.status_changed'] });
    expect(hook.status).toBe(201);
    await page.getByRole('link', { name: 'Domains and senders' }).click();
    await page.getByLabel('New domain').fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('validation_error');
    await page.getByRole('link', { name: 'Back' }).click();
    await page.getByLabel('New domain').fill('Console.Example.TEST');
    await page.getByRole('button', { name: 'Add domain' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('console.example.test');
    expect(await page.locator('#domain-status').textContent()).toBe('not_ready');
    // Publish what the page says to publish, read from its table.
    for (const purpose of ['ownership', 'dkim', 'dmarc']) {
      const name = (await cell(purpose, 2).locator('code').textContent())!;
      const value = (await cell(purpose, 3).locator('code').textContent())!;
      dns.set(name, [{ type: 'TXT', data: value }]);
    }
    await page.getByRole('button', { name: "Copy the dmarc record's value" }).click();
    await page.getByRole('button', { name: "Copy the dmarc record's value" }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('v=DMARC1; p=none;');
    await page.getByRole('button', { name: 'Check DNS now' }).click();
    expect(await page.locator('#domain-status').textContent()).toBe('ready');
    expect(await cell('DKIM', 1).textContent()).toBe('verified');
    // The providers' rules: DKIM and DMARC as the check found them; nothing sent yet, so no TLS to judge.
    const rules = page.getByRole('table', { name: "Mailbox providers' requirements" });
    const verdict = (provider: string, requirement: string) =>
      rules.locator('tbody tr', { has: page.locator('td:nth-child(1)', { hasText: new RegExp(`^${provider}$`) }) }).filter({ has: page.locator('td:nth-child(2)', { hasText: new RegExp(`^${requirement}$`) }) });
    expect(await verdict('Gmail', 'dmarc_published').locator('td').nth(2).textContent()).toBe('pass');
    expect(await verdict('Yahoo', 'tls').locator('td').nth(3).textContent()).toBe('no mail of this domain was accepted by Yahoo in the last 24 h');
    expect(await verdict('Microsoft', 'tls').count()).toBe(0);
    await screenshot('domain');
  });

  it('finds a message by a to or cc recipient, never by a BCC one, and shows its attempts with what the transport saw', async () => {
    await page.getByLabel("New sender's address").fill('billing@elsewhere.test');
    await page.getByRole('button', { name: 'Add sender' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('validation_error');
    await page.getByRole('link', { name: 'Back' }).click();
    await page.getByLabel("New sender's address").fill('billing@console.example.test');
    await page.getByLabel('Display name (optional)').fill('Billing');
    await page.getByRole('button', { name: 'Add sender' }).click();
    expect(await page.getByRole('cell', { name: 'billing@console.example.test', exact: true }).count()).toBe(1);
    const sent = await api.http
      .post('/v1/emails')
      .set({ Authorization: `Bearer ${sendingKey}`, 'Idempotency-Key': randomUUID() })
      .send({ from: 'billing@console.example.test', to: ['Ann@Example.test'], cc: ['carl@example.test'], bcc: ['hidden@example.test'], subject: 'Invoice', content: { plain: 'Hi' } });
    expect(sent.body).toMatchObject({ id: expect.stringMatching(/^em_/) });
    const emailId = sent.body.id as string;
    // The delivery daemon's record of one attempt: the peer's reply, MX and TLS.
    await api.deps.db`
      insert into attempts (id, email_id, number, started_at, ended_at, outcome, recipients, bcc_recipients, tls, mx_host, mx_address, reply, tls_version, tls_cipher, tls_verified, tls_policy)
      values (${newId('attempt')}, ${emailId}, 1, now(), now(), 'deferred', ${JSON.stringify(['Ann@example.test', 'carl@example.test'])}::text::jsonb, 1, true,
              'mx1.example.test', '192.0.2.25', ${JSON.stringify({ code: 451, enhanced_status: '4.7.1', text: 'Greylisted, try again later' })}::text::jsonb,
              'TLSv1.3', 'TLS_AES_256_GCM_SHA384', true, 'opportunistic')`;

    await page.getByRole('link', { name: 'Emails' }).first().click();
    await page.getByLabel('To or cc recipient').fill('hidden@example.test');
    await page.getByRole('button', { name: 'Search' }).click();
    expect(await page.getByText('No message matches.').count()).toBe(1);
    for (const recipient of ['ann@example.test', 'CARL@example.test']) {
      await page.getByLabel('To or cc recipient').fill(recipient);
      await page.getByLabel('Status').selectOption('queued');
      await page.getByRole('button', { name: 'Search' }).click();
      expect(await page.getByRole('link', { name: emailId }).count()).toBe(1);
    }
    await screenshot('emails');
    await page.getByRole('link', { name: emailId }).click();
    const attempt = page.locator('table', { hasText: 'Each SMTP transaction' }).locator('tbody tr').first();
    expect(await attempt.textContent()).toContain('451 4.7.1 Greylisted, try again later');
    expect(await attempt.textContent()).toContain('mx1.example.test');
    expect(await attempt.textContent()).toContain('TLSv1.3');
    expect(await attempt.textContent()).toContain('1 BCC');
    await screenshot('email');
  });

  it('removes a suppression', async () => {
    const auth = { Authorization: `Bearer ${managementKey}` };
    expect((await api.http.post('/v1/suppressions').set(auth).send({ email: 'gone@example.test' })).status).toBe(201);
    await page.goto(`${server.url}/console/accounts/${accountId}/suppressions`);
    expect(await page.getByRole('cell', { name: 'gone@example.test', exact: true }).count()).toBe(1);
    await screenshot('suppressions');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove gone@example.test' }).click();
    await page.getByText('No suppressed address.').waitFor();
    expect((await api.http.get('/v1/suppressions/gone@example.test').set(auth)).status).toBe(404);
  });

  it('shows the mail an account received, and one message with its authentication, attachments and text', async () => {
    const raw = Buffer.from(
      'From: Alice <alice@client.test>\r\nTo: support@example.test\r\nSubject: Where is my parcel?\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n' +
        '--x\r\nContent-Type: text/plain\r\n\r\n<b>Still</b> waiting.\r\n--x\r\nContent-Type: text/csv; name=order.csv\r\n\r\na,b\r\n--x--\r\n',
    );
    const id = newId('inboundEmail');
    const auth = { spf: { result: 'pass', domain: 'client.test' }, dkim: { result: 'fail', signatures: [] }, dmarc: { result: 'none', domain: null, policy: null }, arc: { result: 'none' } };
    const email = { id, accountId, routeId: newId('inboundRoute'), mailFrom: 'alice@client.test', recipients: ['support@example.test'], message: await readInboundMessage(raw), auth, size: raw.length, createdAt: new Date() };
    await insertInboundEmails(api.deps.db, [{ ...email, remoteAddress: '127.0.0.1', raw, webhookId: null, event: {} }]);
    await page.goto(`${server.url}/console/accounts/${accountId}`);
    await page.getByRole('link', { name: 'Received mail' }).click();
    expect(await page.getByRole('row', { name: new RegExp(id) }).textContent()).toContain('Where is my parcel?');
    await screenshot('inbound');
    await page.getByRole('link', { name: id }).click();
    expect(await page.locator('#inbound-dkim').textContent()).toBe('fail');
    expect(await page.getByRole('cell', { name: 'order.csv' }).count()).toBe(1);
    // The text is shown as text: markup in it is never rendered.
    expect(await page.locator('pre').textContent()).toBe('<b>Still</b> waiting.');
    await screenshot('inbound-email');
  });

  it('redelivers a failed webhook delivery', async () => {
    const [delivery] = await api.deps.db`
      update webhook_deliveries set status = 'failed', attempt_count = 8, last_response_status = 500
       where account_id = ${accountId} returning id, endpoint_id`;
    const postmark = await api.http
      .post('/v1/webhooks')
      .set('Authorization', `Bearer ${managementKey}`)
      .send({ url: 'https://pm-hook:s3cret@hooks.example.com/postmark', format: 'postmark' });
    await page.goto(`${server.url}/console/accounts/${accountId}/webhooks`);
    // A postmark endpoint shows its format and its URL with the password masked.
    expect(await cell(postmark.body.id, 1).textContent()).toBe('https://pm-hook:********@hooks.example.com/postmark');
    expect(await cell(postmark.body.id, 2).textContent()).toBe('postmark');
    expect(await page.content()).not.toContain('s3cret');
    await page.getByRole('link', { name: delivery!.endpoint_id }).click();
    expect(await cell(delivery!.id, 3).textContent()).toBe('failed');
    await page.getByRole('button', { name: `Redeliver ${delivery!.id}` }).click();
    await page.waitForLoadState();
    expect(await cell(delivery!.id, 3).textContent()).toBe('pending');
    expect(await cell(delivery!.id, 4).textContent()).toBe('0');
    await screenshot('webhook');
  });

  it('shows the destinations and links to Bull Board, which loads nothing from another host and shows its labels', async () => {
    await page.getByRole('link', { name: 'Destinations' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Destinations');
    // The message found above is owed to example.test (to, cc and BCC), which no daemon has routed here.
    const unrouted = page.locator('tbody tr', { hasText: '(not routed yet)' }).locator('td');
    expect(await unrouted.nth(2).textContent()).toBe('example.test');
    expect(await unrouted.nth(3).textContent()).toBe('3');
    await screenshot('destinations');
    await page.getByRole('link', { name: 'Queues (Bull Board)' }).click();
    await page.getByText('deliveries').first().waitFor();
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/\b[A-Z]+\.[A-Z_]+\b/);
    await screenshot('bull-board');
  });

  it('shows Bull Board\'s labels when opened with the token in its URL, on a session of its own', async () => {
    const context = await browser.newContext();
    try {
      const withToken = await context.newPage();
      const url = new URL('/admin/queues', server.url);
      url.username = 'ops';
      url.password = OPERATOR_TOKEN;
      await withToken.goto(url.toString());
      await withToken.getByText('deliveries').first().waitFor();
      expect(await withToken.getByRole('button', { name: 'Collapse sidebar' }).count()).toBe(1);
      expect(await withToken.locator('body').innerText()).not.toMatch(/\b[A-Z]+\.[A-Z_]+\b/);
      expect(new URL(withToken.url()).username).toBe('');
    } finally {
      await context.close();
    }
  });

  // After the destinations test, whose counts its message would change.
  it("lists the account's templates with a preview in sample variables, and shows the version a message used", async () => {
    const auth = { Authorization: `Bearer ${managementKey}` };
    const created = await api.http
      .post('/v1/templates')
      .set(auth)
      .send({ name: 'Invoice ready', alias: 'invoice', subject: 'Invoice {{invoice.number}}', html: '<p>Hello {{name}}</p>{{#lines}}<p>{{item}}</p>{{/lines}}' });
    expect(created.status).toBe(201);
    await api.http.patch('/v1/templates/invoice').set(auth).send({ name: 'Invoice is ready' });
    const sent = await api.http
      .post('/v1/emails')
      .set({ Authorization: `Bearer ${sendingKey}`, 'Idempotency-Key': randomUUID() })
      .send({ from: 'billing@console.example.test', to: 'ann@example.test', template: { alias: 'invoice', variables: { invoice: { number: 'F-9' }, name: 'Ann', lines: [] } } });
    expect(sent.status).toBe(202);

    await page.goto(`${server.url}/console/accounts/${accountId}`);
    await page.getByRole('link', { name: 'Templates' }).click();
    const row = page.locator('tr', { hasText: created.body.id });
    expect(await row.textContent()).toContain('invoice.number, name, lines, item');
    const preview = page.getByRole('region', { name: 'Preview of Invoice is ready' });
    expect(await preview.textContent()).toContain('Subject: Invoice ‹invoice.number›');
    expect(await preview.locator('pre.preview-text').textContent()).toContain('Hello ‹name›');
    await preview.getByText('HTML of Invoice is ready').click();
    expect(await preview.locator('pre.preview-html').textContent()).toBe('<p>Hello ‹name›</p><p>‹item›</p>');
    await expectLabelledControls();
    await screenshot('templates');

    await page.goto(`${server.url}/console/emails/${sent.body.id}`);
    expect(await page.locator('dd', { hasText: created.body.id }).textContent()).toBe(`${created.body.id} version 2`);
  });

  it('signs out; the session is gone', async () => {
    await page.goto(`${server.url}/console/accounts`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/console/login');
    await page.goto(`${server.url}/console/accounts`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    expect(requested.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });
});
