import { startTestApi, type TestApi } from '@mailer/api/testing';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/** X-Mailer-Template and X-Mailer-Template-Variables (docs/api-decisions.md, "Templates"). */
let h: SubmissionHarness;
let api: TestApi;
let acme: SubmittingAccount;

const queuedId = (response: string) => /^250 2\.0\.0 queued as (em_[0-9A-Za-z]{22})$/.exec(response.trim())?.[1];

beforeAll(async () => {
  h = await startSubmissionHarness();
  api = await startTestApi({ DATABASE_URL: h.config.databaseUrl, REDIS_PREFIX: h.config.redisPrefix });
  acme = await h.account({ domain: 'submit-templates.test' });
  const created = await api.http
    .post('/v1/templates')
    .set('Authorization', `Bearer ${acme.managementKey}`)
    .send({ name: 'Welcome', alias: 'welcome', subject: 'Welcome, {{name}}', html: '<p>Hello {{name}}, your plan is {{plan.name}}.</p>' });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await api.close();
  await h.close();
});

const submit = (headers: Record<string, string>) =>
  h.submit(acme.sendingKey, { from: acme.sender, to: 'ann@example.test', subject: 'ignored', text: 'ignored', headers });

it('renders the message from the template named by X-Mailer-Template, and sends neither header on', async () => {
  const sent = await submit({ 'X-Mailer-Template': 'welcome', 'X-Mailer-Template-Variables': JSON.stringify({ name: 'Ann & Bob', plan: { name: 'Pro' } }), 'X-Campaign': 'spring' });
  expect(sent).toMatchObject({ accepted: true, responseCode: 250 });
  const id = queuedId(sent.response)!;
  const [row] = await h.deps.db`select subject, html_body, text_body, headers, template_id, template_version from emails where id = ${id}`;
  expect(row).toMatchObject({
    subject: 'Welcome, Ann & Bob',
    html_body: '<p>Hello Ann &amp; Bob, your plan is Pro.</p>',
    text_body: 'Hello Ann & Bob, your plan is Pro.',
    headers: [{ name: 'X-Campaign', value: 'spring' }],
    template_id: expect.stringMatching(/^tpl_/),
    template_version: 1,
  });
});

it('refuses variables that are not a JSON object, a missing variable and an unknown template with a clear 550', async () => {
  const badJson = await submit({ 'X-Mailer-Template': 'welcome', 'X-Mailer-Template-Variables': '{"name": ' });
  expect(badJson).toMatchObject({ accepted: false, responseCode: 550 });
  expect(badJson.response).toBe('550 5.6.0 validation_error: template.variables the X-Mailer-Template-Variables header must be a JSON object');
  const missing = await submit({ 'X-Mailer-Template': 'welcome', 'X-Mailer-Template-Variables': '{"name": "Ann"}' });
  expect(missing.response).toBe('550 5.6.0 template_variable_missing: template.variables lacks "plan.name", which the template uses');
  const unknown = await submit({ 'X-Mailer-Template': 'nope' });
  expect(unknown.response).toBe('550 5.6.0 validation_error: template.alias no template with this alias exists in this account');
});
