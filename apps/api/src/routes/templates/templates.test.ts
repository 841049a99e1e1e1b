import { createManagementKey, setAccountPlan } from '@mailer/db';
import { HTML_MAX_BYTES } from '@mailer/domain';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../../testing/sending-account';
import { startTestApi, type TestApi } from '../../testing';

/** /v1/templates and sending by template (docs/api-decisions.md, "Templates"). */
let api: TestApi;
let acme: SendingAccount;
beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: GENEROUS_LIMITS, domain: 'templates.test' });
});
afterAll(() => api.close());

const as = (key: string) => ({ Authorization: `Bearer ${key}` });
const manage = () => as(acme.management_key);
const create = (body: object, key = acme.management_key) => api.http.post('/v1/templates').set(as(key)).send(body);
const receipt = (overrides: object = {}) => ({
  name: 'Receipt',
  subject: 'Order {{order.number}} for {{name}}',
  html: '<p>Thanks, {{name}}.</p><ul>{{#items}}<li>{{title}}</li>{{/items}}</ul>',
  ...overrides,
});
const ORDER = { name: 'Ann <&>', order: { number: '1042' }, items: [{ title: 'Tea' }, { title: 'Cups & saucers' }] };

describe('template management', () => {
  it('creates version 1 with the names it uses, and finds it by id and by alias', async () => {
    const res = await create(receipt({ alias: 'receipt-a', text: 'Thanks, {{name}}.' }));
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/templates/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tpl_[0-9A-Za-z]{22}$/),
      name: 'Receipt',
      alias: 'receipt-a',
      version: 1,
      subject: 'Order {{order.number}} for {{name}}',
      html: receipt().html,
      text: 'Thanks, {{name}}.',
      variables: ['order.number', 'name', 'items', 'title'],
      created_at: expect.any(String),
      updated_at: res.body.created_at,
    });
    expect((await api.http.get(`/v1/templates/${res.body.id}`).set(manage())).body).toEqual(res.body);
    expect((await api.http.get('/v1/templates/receipt-a').set(manage())).body).toEqual(res.body);
    const list = await api.http.get('/v1/templates?limit=100').set(manage());
    expect(list.body.data).toContainEqual(res.body);
  });

  it('takes the templates scopes: read for reading and previews, write for changes', async () => {
    const reader = await createManagementKey(api.deps.db, acme.accountId, ['templates:read']);
    const other = await createManagementKey(api.deps.db, acme.accountId, ['senders:write']);
    expect((await api.http.get('/v1/templates').set(as(reader.key))).status).toBe(200);
    const refused = await create(receipt(), reader.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'insufficient_scope', details: [{ path: 'scope', message: 'requires templates:write' }] });
    expect((await api.http.get('/v1/templates').set(as(other.key))).body.error.code).toBe('insufficient_scope');
    expect((await api.http.get('/v1/templates').set(as(acme.sending_key))).body.error.code).toBe('wrong_key_type');
  });

  it('names the line and column where a part does not parse, and holds the size and alias rules', async () => {
    const res = await create(receipt({ html: '<p>\n  {{#items}}<li>{{title}}</li>\n</ul>', text: 'Hi {{name' }));
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: 'html', message: 'does not parse at line 2, column 3: Unclosed section "items"' },
      { path: 'text', message: 'does not parse at line 1, column 4: Unclosed tag' },
    ]);
    const big = await create(receipt({ html: 'x'.repeat(HTML_MAX_BYTES + 1) }));
    expect(big.body.error.details).toEqual([{ path: 'html', message: `must be at most ${HTML_MAX_BYTES} bytes in UTF-8 (has ${HTML_MAX_BYTES + 1})` }]);
    for (const alias of ['Receipt', 'a'.repeat(65), '', 'tpl_x', 'a b']) {
      expect((await create(receipt({ alias }))).body.error.details).toEqual([{ path: 'alias', message: expect.stringContaining('a-z, 0-9') }]);
    }
    expect((await create({ name: 'x', subject: 'x' })).body.error.details).toEqual([{ path: '(template)', message: 'needs html or text with non-whitespace text' }]);
    expect((await create(receipt({ partial: 'x' }))).status).toBe(422);
  });

  it('makes a new version for every change, none for a no-op, and lists the versions', async () => {
    const { body: first } = await create(receipt({ alias: 'versioned' }));
    const patch = (body: object) => api.http.patch('/v1/templates/versioned').set(manage()).send(body);
    const second = await patch({ subject: 'Your order {{order.number}}' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.id, version: 2, subject: 'Your order {{order.number}}', variables: ['order.number', 'name', 'items', 'title'] });
    const same = await patch({ subject: 'Your order {{order.number}}' });
    expect(same.body).toEqual(second.body);
    const third = await patch({ text: 'Plain {{extra}}', alias: 'versioned-2' });
    expect(third.body).toMatchObject({ version: 3, alias: 'versioned-2', text: 'Plain {{extra}}' });
    expect((await patch({})).body.error.code).toBe('template_not_found');
    expect((await api.http.patch(`/v1/templates/${first.id}`).set(manage()).send({ html: '{{/x}}' })).body.error.details).toEqual([
      { path: 'html', message: 'does not parse at line 1, column 1: Unopened section "x"' },
    ]);

    const versions = await api.http.get(`/v1/templates/versioned-2/versions`).set(manage());
    expect(versions.status).toBe(200);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const { id: _id, updated_at: _updated, ...firstFields } = first;
    expect(versions.body.data[2]).toEqual(firstFields);
    const paged = await api.http.get(`/v1/templates/${first.id}/versions?limit=2`).set(manage());
    expect(paged.body.data).toHaveLength(2);
    const rest = await api.http.get(`/v1/templates/${first.id}/versions?limit=2&cursor=${paged.body.next_cursor}`).set(manage());
    expect(rest.body).toMatchObject({ data: [{ version: 1 }], next_cursor: null });
  });

  it('keeps aliases unique in the account, and a deletion frees the alias', async () => {
    const { body: first } = await create(receipt({ alias: 'welcome' }));
    const taken = await create(receipt({ alias: 'welcome' }));
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('template_alias_conflict');
    const { body: second } = await create(receipt());
    expect((await api.http.patch(`/v1/templates/${second.id}`).set(manage()).send({ alias: 'welcome' })).body.error.code).toBe('template_alias_conflict');
    // Another account may use the same alias.
    const other = await api.createAccount();
    expect((await create(receipt({ alias: 'welcome' }), other.management_key)).status).toBe(201);
    expect((await api.http.get(`/v1/templates/${first.id}`).set(as(other.management_key))).body.error.code).toBe('template_not_found');

    expect((await api.http.delete('/v1/templates/welcome').set(manage())).status).toBe(204);
    expect((await api.http.get(`/v1/templates/${first.id}`).set(manage())).status).toBe(404);
    expect((await api.http.delete(`/v1/templates/${first.id}`).set(manage())).status).toBe(404);
    expect((await create(receipt({ alias: 'welcome' }))).status).toBe(201);
  });

  it("refuses a template beyond the plan's max_templates, shown by GET /v1/account", async () => {
    const account = await api.createAccount();
    await setAccountPlan(api.deps.db, account.account.id, { maxTemplates: 2 });
    expect((await api.http.get('/v1/account').set(as(account.management_key))).body.plan.max_templates).toBe(2);
    const made = await Promise.all([1, 2, 3, 4].map(() => create(receipt(), account.management_key)));
    expect(made.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
    const refused = made.find((r) => r.status === 409)!;
    expect(refused.body.error).toEqual({ code: 'template_limit_exceeded', message: expect.stringContaining('(2)') });
    await api.http.delete(`/v1/templates/${made.find((r) => r.status === 201)!.body.id}`).set(as(account.management_key));
    expect((await create(receipt(), account.management_key)).status).toBe(201);
  });
});

describe('POST /v1/templates/{id}/render', () => {
  it('renders as intake would: escaped in the html only, the text generated from the html without a text part', async () => {
    const { body: template } = await create(receipt());
    const res = await api.http.post(`/v1/templates/${template.id}/render`).set(manage()).send({ variables: ORDER });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subject: 'Order 1042 for Ann <&>',
      html: '<p>Thanks, Ann &lt;&amp;&gt;.</p><ul><li>Tea</li><li>Cups &amp; saucers</li></ul>',
      text: 'Thanks, Ann <&>.\r\n\r\n * Tea\r\n * Cups & saucers',
    });
  });

  it('names a variable the template uses and the variables lack', async () => {
    const { body: template } = await create(receipt());
    const res = await api.http.post(`/v1/templates/${template.id}/render`).set(manage()).send({ variables: { name: 'Ann', items: [] } });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      code: 'template_variable_missing',
      message: 'The template uses "order.number", which the variables do not give.',
      details: [{ path: 'variables', message: 'lacks "order.number", which the template uses' }],
    });
  });
});

describe('sending with a template', () => {
  const stored = async (id: string) => {
    const [row] = await api.deps.db`select subject, html_body, text_body, template_id, template_version from emails where id = ${id}`;
    return row!;
  };

  it('renders at intake, stores what it rendered, and the detail names the template version', async () => {
    const { body: template } = await create(receipt({ alias: 'order-receipt', text: 'Thanks, {{name}}: {{#items}}{{title}}; {{/items}}' }));
    const sent = await acme.send({ from: acme.sender.email, to: 'ann@example.test', template: { alias: 'order-receipt', variables: ORDER } });
    expect(sent.status).toBe(202);
    expect(await stored(sent.body.id)).toEqual({
      subject: 'Order 1042 for Ann <&>',
      html_body: '<p>Thanks, Ann &lt;&amp;&gt;.</p><ul><li>Tea</li><li>Cups &amp; saucers</li></ul>',
      text_body: 'Thanks, Ann <&>: Tea; Cups & saucers; ',
      template_id: template.id,
      template_version: 1,
    });
    // A later version changes nothing of what was accepted.
    await api.http.patch('/v1/templates/order-receipt').set(manage()).send({ subject: 'Changed {{name}}' });
    const detail = await acme.get(`/v1/emails/${sent.body.id}`);
    expect(detail.body).toMatchObject({ subject: 'Order 1042 for Ann <&>', template: { id: template.id, version: 1 } });
    const byId = await acme.send({ from: acme.sender.email, to: 'ann@example.test', template: { id: template.id, variables: ORDER } });
    expect((await acme.get(`/v1/emails/${byId.body.id}`)).body.template).toEqual({ id: template.id, version: 2 });
    expect((await acme.get(`/v1/emails/${(await acme.send(acme.message())).body.id}`)).body.template).toBeNull();
  });

  it('generates the plain part from the rendered html when the template has no text', async () => {
    const { body: template } = await create(receipt());
    const sent = await acme.send({ from: acme.sender.email, to: 'ann@example.test', template: { id: template.id, variables: ORDER } });
    expect((await stored(sent.body.id)).text_body).toBe('Thanks, Ann <&>.\r\n\r\n * Tea\r\n * Cups & saucers');
  });

  it('refuses a template with subject or content, neither, an unknown template and a missing variable', async () => {
    const { body: template } = await create(receipt());
    const both = await acme.send({ ...acme.message(), template: { id: template.id, variables: ORDER } });
    expect(both.status).toBe(422);
    expect(both.body.error.details).toEqual([{ path: 'template', message: 'cannot be given with subject and content: the template renders them' }]);
    const neither = await acme.send({ from: acme.sender.email, to: 'ann@example.test' });
    expect(neither.body.error.details).toEqual([
      { path: 'subject', message: 'is required' },
      { path: 'content', message: 'is required' },
    ]);
    expect((await acme.send({ from: acme.sender.email, to: 'a@example.test', template: { variables: {} } })).body.error.details).toEqual([
      { path: 'template', message: 'must have exactly one of id and alias' },
    ]);
    const unknown = await acme.send({ from: acme.sender.email, to: 'a@example.test', template: { alias: 'no-such-template' } });
    expect(unknown.body.error).toMatchObject({ code: 'validation_error', details: [{ path: 'template.alias', message: 'no template with this alias exists in this account' }] });
    const missing = await acme.send({ from: acme.sender.email, to: 'a@example.test', template: { id: template.id, variables: { name: 'Ann' } } });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'template_variable_missing', details: [{ path: 'template.variables', message: 'lacks "order.number", which the template uses' }] });
    const injected = await acme.send({ from: acme.sender.email, to: 'a@example.test', template: { id: template.id, variables: { ...ORDER, name: 'x\r\nBcc: eve@example.test' } } });
    expect(injected.body.error).toMatchObject({ code: 'validation_error', details: [{ path: 'template.variables', message: expect.stringContaining('the rendered subject must not contain CR') }] });
  });

  it('renders each message of a batch, and a missing variable names its item', async () => {
    const { body: template } = await create(receipt());
    const item = (name: string) => ({ from: acme.sender.email, to: `${name}@example.test`, template: { id: template.id, variables: { ...ORDER, name } } });
    const send = (body: unknown[]) => api.http.post('/v1/emails/batch').set('Authorization', acme.auth).set('Idempotency-Key', crypto.randomUUID()).send(body);
    const ok = await send([item('ann'), acme.message()]);
    expect(ok.status).toBe(202);
    expect((await stored(ok.body.data[0].id)).subject).toBe('Order 1042 for ann');
    expect((await stored(ok.body.data[1].id)).template_id).toBeNull();
    const refused = await send([acme.message(), { ...item('bob'), template: { id: template.id, variables: {} } }]);
    expect(refused.body.error).toMatchObject({ code: 'template_variable_missing', details: [{ path: '[1].template.variables' }] });
  });

  it('replays the same request and refuses another under the same key', async () => {
    const { body: template } = await create(receipt());
    const body = { from: acme.sender.email, to: 'ann@example.test', template: { id: template.id, variables: ORDER } };
    const first = await acme.send(body, 'template-replay');
    const again = await acme.send({ template: { variables: ORDER, id: template.id }, to: 'ann@example.test', from: acme.sender.email }, 'template-replay');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await acme.send({ ...body, template: { id: template.id, variables: { ...ORDER, name: 'Bob' } } }, 'template-replay');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
  });

  it('replays the same request whatever became of its template, alone or in a batch', async () => {
    const { body: deleted } = await create(receipt());
    const { body: changed } = await create(receipt());
    const message = (id: string, variables: object = ORDER) => ({ from: acme.sender.email, to: 'ann@example.test', template: { id, variables } });
    const batch = (body: unknown[], key: string) => api.http.post('/v1/emails/batch').set('Authorization', acme.auth).set('Idempotency-Key', key).send(body);
    const [deletedKey, changedKey, batchKey] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const first = await acme.send(message(deleted.id), deletedKey);
    const second = await acme.send(message(changed.id), changedKey);
    const third = await batch([message(deleted.id), acme.message()], batchKey);
    expect([first.status, second.status, third.status]).toEqual([202, 202, 202]);
    expect((await api.http.delete(`/v1/templates/${deleted.id}`).set(manage())).status).toBe(204);
    await api.http.patch(`/v1/templates/${changed.id}`).set(manage()).send({ subject: 'Order {{order.number}} for {{name}} on {{date}}' });

    for (const [again, original] of [
      [await acme.send(message(deleted.id), deletedKey), first],
      [await acme.send(message(changed.id), changedKey), second],
      [await batch([message(deleted.id), acme.message()], batchKey), third],
    ] as const) {
      expect(again.status).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['ratelimit-limit']).toBeDefined();
      expect(again.body).toEqual(original.body);
    }
    const [row] = await api.deps.db`select count(*)::int as count from emails where template_id = ${deleted.id}`;
    expect(row!.count).toBe(2);

    // Another request under the key: a conflict when it renders, its own refusal when it does not.
    expect((await acme.send(acme.message(), deletedKey)).body.error.code).toBe('idempotency_conflict');
    expect((await acme.send(message(changed.id, { ...ORDER, date: 'Monday' }), changedKey)).body.error.code).toBe('idempotency_conflict');
    expect((await acme.send(message(deleted.id, { ...ORDER, name: 'Bob' }), deletedKey)).body.error.details).toEqual([
      { path: 'template.id', message: 'no template with this id exists in this account' },
    ]);
    // The test key's space holds no record of the key: the render error.
    const testMode = await api.http.post('/v1/emails').set(as(acme.test_sending_key)).set('Idempotency-Key', deletedKey).send(message(deleted.id));
    expect(testMode.body.error).toMatchObject({ code: 'validation_error', details: [{ path: 'template.id' }] });
    // A new key: the render error, and the key stays free.
    const fresh = crypto.randomUUID();
    const unknown = await acme.send(message(deleted.id), fresh);
    expect(unknown.status).toBe(422);
    expect(unknown.body.error).toMatchObject({ code: 'validation_error', details: [{ path: 'template.id' }] });
    const missing = await acme.send(message(changed.id), crypto.randomUUID());
    expect(missing.body.error).toMatchObject({ code: 'template_variable_missing', details: [{ path: 'template.variables', message: 'lacks "date", which the template uses' }] });
    expect((await batch([acme.message(), message(deleted.id)], crypto.randomUUID())).body.error.details).toEqual([
      { path: '[1].template.id', message: 'no template with this id exists in this account' },
    ]);
    const reused = await acme.send(acme.message(), fresh);
    expect(reused.status).toBe(202);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
  });
});
