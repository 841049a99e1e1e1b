import { Errors, ServerClient } from 'postmark';
import { insertQueuedEmail } from '@mailer/testing';
import { addSuppression } from '@mailer/db';
import { GENEROUS_LIMITS, sendingAccount, type SendingAccount } from '../../testing/sending-account';
import { startTestApi, type TestApi } from '../../testing/test-api';

/** Postmark's own client against the running API (docs/api-decisions.md, "Resend and Postmark adapters"). */
let api: TestApi;
let acme: SendingAccount;
let host: string;
let client: ServerClient;

const clientFor = (token: string) => new ServerClient(token, { requestHost: host, useHttps: false });

beforeAll(async () => {
  api = await startTestApi();
  acme = await sendingAccount(api, { limits: GENEROUS_LIMITS });
  host = `${(await api.listen()).replace('http://', '')}/postmark`;
  client = clientFor(acme.sending_key);
});
afterAll(() => api.close());

const from = () => `Acme <${acme.sender.email}>`;

describe('sending through the Postmark client', () => {
  it('sends with every field, and the message is the same resource at /v1', async () => {
    const sent = await client.sendEmail({
      From: from(),
      To: 'Ann Example <ann@example.test>, "Doe, Jo" <jo@example.test>',
      Cc: 'cy@example.test',
      Bcc: 'hidden@example.test',
      Subject: 'Every field',
      HtmlBody: '<p>Hello <img src="cid:logo.png"></p>',
      TextBody: 'Hello',
      ReplyTo: 'Support <support@acme.test>',
      Headers: [{ Name: 'X-Campaign', Value: 'spring' }],
      Tag: 'welcome',
      Metadata: { order: '42' },
      Attachments: [
        { Name: 'a.txt', Content: Buffer.from('attached').toString('base64'), ContentType: 'text/plain', ContentID: null },
        { Name: 'logo.png', Content: Buffer.from('png').toString('base64'), ContentType: 'image/png', ContentID: 'cid:logo.png' },
      ],
      MessageStream: 'outbound',
      TrackOpens: false,
      TrackLinks: 'None' as never,
    });
    expect(sent).toMatchObject({ ErrorCode: 0, Message: 'OK', To: 'Ann Example <ann@example.test>, "Doe, Jo" <jo@example.test>' });
    const v1 = await acme.get(`/v1/emails/${sent.MessageID}`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ to: ['ann@example.test', 'jo@example.test'], cc: ['cy@example.test'], bcc_count: 1, tags: { tag: 'welcome', order: '42' }, reply_to: ['support@acme.test'] });
    expect(v1.body.deliveries).toHaveLength(3);
    expect(v1.body.attachments.map((a: { inline: boolean }) => a.inline)).toEqual([false, true]);

    const details = await client.getOutboundMessageDetails(sent.MessageID);
    expect(details).toMatchObject({ MessageID: sent.MessageID, Tag: 'welcome', Metadata: { order: '42' }, TextBody: null, HtmlBody: null, Bcc: [] });
    expect(details.To.map((r) => r.Email)).toEqual(['ann@example.test', 'jo@example.test']);
    expect(details).toMatchObject({ TrackOpens: false, TrackLinks: 'None' });
    expect(v1.body.track).toEqual({ opens: false, clicks: false });
  });

  it('tracks as TrackOpens and TrackLinks ask, and shows it back', async () => {
    const sent = await client.sendEmail({ From: from(), To: 'ann@example.test', Subject: 'Tracked', HtmlBody: '<a href="https://acme.test/">Go</a>', TrackOpens: true, TrackLinks: 'HtmlAndText' as never });
    expect(sent.ErrorCode).toBe(0);
    expect((await acme.get(`/v1/emails/${sent.MessageID}`)).body.track).toEqual({ opens: true, clicks: true });
    expect(await client.getOutboundMessageDetails(sent.MessageID)).toMatchObject({ TrackOpens: true, TrackLinks: 'HtmlOnly' });
    const textOnly = await client.sendEmail({ From: from(), To: 'ann@example.test', Subject: 'Tracked', HtmlBody: '<a href="https://acme.test/">Go</a>', TrackLinks: 'TextOnly' as never });
    expect((await client.getOutboundMessageDetails(textOnly.MessageID)).TrackLinks).toBe('None');
  });

  it('sends on the broadcast stream with MessageStream broadcast, and shows each message on its stream', async () => {
    const broadcast = await client.sendEmail({ From: from(), To: 'ann@example.test', Subject: 'News', TextBody: 'News', MessageStream: 'broadcast' });
    const outbound = await client.sendEmail({ From: from(), To: 'ann@example.test', Subject: 'Receipt', TextBody: 'Receipt' });
    expect((await acme.get(`/v1/emails/${broadcast.MessageID}`)).body.type).toBe('broadcast');
    expect((await acme.get(`/v1/emails/${outbound.MessageID}`)).body.type).toBe('transactional');
    expect((await client.getOutboundMessageDetails(broadcast.MessageID)).MessageStream).toBe('broadcast');
    expect((await client.getOutboundMessageDetails(outbound.MessageID)).MessageStream).toBe('outbound');
  });

  it('sends a batch with a result per message', async () => {
    const results = await client.sendEmailBatch([
      { From: from(), To: 'ann@example.test', Subject: 'One', TextBody: 'one' },
      { From: from(), To: 'not-an-address', Subject: 'Two', TextBody: 'two' },
      { From: from(), To: 'bob@example.test', Subject: 'Three', HtmlBody: '<p>three</p>' },
    ]);
    expect(results.map((r) => r.ErrorCode)).toEqual([0, 300, 0]);
    expect(results[1]!.Message).toContain('To');
    for (const r of [results[0]!, results[2]!]) expect((await acme.get(`/v1/emails/${r.MessageID}`)).status).toBe(200);
  });

  it('lists outbound messages with count and offset', async () => {
    const owner = await sendingAccount(api, { domain: 'outbound.test', limits: GENEROUS_LIMITS });
    const own = clientFor(owner.sending_key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.unshift((await own.sendEmail({ From: owner.sender.email, To: 'ann@example.test', Subject: `n${i}`, TextBody: 'x' })).MessageID);
    const page = await own.getOutboundMessages({ count: 2, offset: 1 });
    expect(page.TotalCount).toBe(3);
    expect(page.Messages.map((m) => m.MessageID)).toEqual(ids.slice(1, 3));
  });

  it('refuses in Postmark\'s terms, with its error classes', async () => {
    await expect(clientFor('svc_live_unknownunknownunknownunknown0').sendEmail({ From: from(), To: 'a@example.test', Subject: 's', TextBody: 't' })).rejects.toMatchObject({
      constructor: Errors.InvalidAPIKeyError,
      code: 10,
      statusCode: 401,
    });
    const invalid = client.sendEmail({ From: from(), To: 'a@example.test', Subject: 's' });
    await expect(invalid).rejects.toBeInstanceOf(Errors.ApiInputError);
    await expect(invalid).rejects.toMatchObject({ code: 300, statusCode: 422 });
    await expect(client.sendEmail({ From: from(), To: 'a@example.test', Subject: 's', TextBody: 't', MessageStream: 'marketing' })).rejects.toMatchObject({ code: 300, message: expect.stringContaining('MessageStream') });
    await expect(client.sendEmail({ From: from(), To: 'a@example.test', Subject: 's', TextBody: 't', TrackLinks: 'Everywhere' as never })).rejects.toMatchObject({ message: expect.stringContaining('TrackLinks') });
    await expect(client.sendEmail({ From: 'other@acme.test', To: 'a@example.test', Subject: 's', TextBody: 't' })).rejects.toMatchObject({ code: 400 });
    await expect(client.getOutboundMessageDetails('em_missing')).rejects.toMatchObject({ code: 701, statusCode: 422 });
    const limited = await sendingAccount(api, { domain: 'limited.test', limits: { ...GENEROUS_LIMITS, perMinute: 1 } });
    const tight = clientFor(limited.sending_key);
    await tight.sendEmail({ From: limited.sender.email, To: 'a@example.test', Subject: 's', TextBody: 't' });
    await expect(tight.sendEmail({ From: limited.sender.email, To: 'b@example.test', Subject: 's', TextBody: 't' })).rejects.toBeInstanceOf(Errors.RateLimitExceededError);
  });
});

describe('templates through the Postmark client', () => {
  it('sends with a template by alias or id, alone and in a batch, with the other members, refusing as /v1 does', async () => {
    const created = await api.http
      .post('/v1/templates')
      .set('Authorization', `Bearer ${acme.management_key}`)
      .send({ name: 'Welcome', alias: 'postmark-welcome', subject: 'Hi {{name}}', text: 'Hello {{name}}' });
    expect(created.status).toBe(201);
    const sent = await client.sendEmailWithTemplate({
      From: from(),
      To: 'Ann <ann@example.test>',
      Cc: 'cy@example.test',
      TemplateAlias: 'postmark-welcome',
      TemplateModel: { name: 'Ann' },
      Tag: 'welcome',
      Headers: [{ Name: 'X-Campaign', Value: 'spring' }],
      MessageStream: 'outbound',
    });
    expect(sent).toMatchObject({ To: 'Ann <ann@example.test>', ErrorCode: 0, Message: 'OK' });
    expect((await acme.get(`/v1/emails/${sent.MessageID}`)).body).toMatchObject({
      subject: 'Hi Ann',
      cc: ['cy@example.test'],
      tags: { tag: 'welcome' },
      template: { id: created.body.id, version: 1 },
    });

    // Postmark's ids are numbers; here TemplateId takes the tpl_… id.
    const byId = { TemplateId: created.body.id as unknown as number };
    const results = await client.sendEmailBatchWithTemplates([
      { From: from(), To: 'bob@example.test', ...byId, TemplateModel: { name: 'Bob' } },
      { From: from(), To: 'eve@example.test', TemplateAlias: 'postmark-welcome', TemplateModel: { name: 'Eve' }, InlineCss: true },
    ]);
    expect(results.map((r) => r.ErrorCode)).toEqual([0, 300]);
    expect(results[1]!.Message).toContain('InlineCss');
    expect((await acme.get(`/v1/emails/${results[0]!.MessageID}`)).body).toMatchObject({ subject: 'Hi Bob', template: { id: created.body.id } });
    // Templates are rendered by the /v1 batch: a render that fails refuses the whole request, as the plan does.
    const unrendered = client.sendEmailBatchWithTemplates([
      { From: from(), To: 'cy@example.test', TemplateAlias: 'postmark-welcome', TemplateModel: { name: 'Cy' } },
      { From: from(), To: 'dee@example.test', TemplateAlias: 'postmark-welcome', TemplateModel: {} },
    ]);
    await expect(unrendered).rejects.toMatchObject({ code: 300, message: expect.stringContaining('[1].TemplateModel') });
    const unknown = client.sendEmailWithTemplate({ From: from(), To: 'a@example.test', TemplateAlias: 'no-such-template', TemplateModel: {} });
    await expect(unknown).rejects.toMatchObject({ code: 300, message: expect.stringContaining('TemplateAlias') });

    const neither = client.sendEmailWithTemplate({ From: from(), To: 'a@example.test', TemplateModel: {} });
    await expect(neither).rejects.toBeInstanceOf(Errors.ApiInputError);
    await expect(neither).rejects.toMatchObject({ code: 300, message: expect.stringContaining('TemplateId or TemplateAlias') });
    const both = client.sendEmailWithTemplate({ From: from(), To: 'a@example.test', ...byId, TemplateAlias: 'postmark-welcome', TemplateModel: { name: 'Ann' } });
    await expect(both).rejects.toMatchObject({ code: 300, message: expect.stringContaining('TemplateAlias: give TemplateId or TemplateAlias, not both') });
  });
});

describe('bounces and suppressions through the Postmark client', () => {
  it('lists, creates and deletes suppressions, and lists bounces, with a management key', async () => {
    const admin = clientFor(acme.management_key);
    expect(await admin.createSuppressions('outbound', { Suppressions: [{ EmailAddress: 'gone@example.test' }, { EmailAddress: 'nope' }] })).toEqual({
      Suppressions: [
        { EmailAddress: 'gone@example.test', Status: 'Suppressed', Message: null },
        { EmailAddress: 'nope', Status: 'Failed', Message: 'not an email address' },
      ],
    });
    const email = await insertQueuedEmail(api.deps.db, { accountId: acme.accountId, senderId: acme.sender.id, domainId: acme.domain.id, from: acme.sender.email, to: ['bounced@example.test'] });
    await addSuppression(api.deps.db, acme.accountId, { email: 'bounced@example.test', emailKey: 'bounced@example.test', reason: 'hard_bounce', stream: null, at: new Date() });
    const dump = await admin.getSuppressions('outbound');
    expect(dump.Suppressions.map((s) => [s.EmailAddress, s.SuppressionReason])).toEqual(
      expect.arrayContaining([['gone@example.test', 'ManualSuppression'], ['bounced@example.test', 'HardBounce']]),
    );
    const bounces = await admin.getBounces({ count: 10, offset: 0 });
    expect(bounces.TotalCount).toBe(1);
    expect(bounces.Bounces[0]).toMatchObject({ Email: 'bounced@example.test', Type: 'HardBounce' });
    expect(email.id).toMatch(/^em_/);
    expect(await admin.deleteSuppressions('outbound', { Suppressions: [{ EmailAddress: 'gone@example.test' }, { EmailAddress: 'never@example.test' }] })).toMatchObject({
      Suppressions: [{ Status: 'Deleted' }, { Status: 'Failed' }],
    });
    // The broadcast stream's list holds its own entries and every stream's (the hard bounce), never the outbound stream's.
    await admin.createSuppressions('broadcast', { Suppressions: [{ EmailAddress: 'news@example.test' }, { EmailAddress: 'kept@example.test' }] });
    await admin.createSuppressions('outbound', { Suppressions: [{ EmailAddress: 'kept@example.test' }] });
    expect((await admin.getSuppressions('broadcast')).Suppressions.map((s) => s.EmailAddress).sort()).toEqual(['bounced@example.test', 'kept@example.test', 'news@example.test']);
    expect((await admin.getSuppressions('outbound')).Suppressions.map((s) => s.EmailAddress).sort()).toEqual(['bounced@example.test', 'kept@example.test']);
    expect(await admin.deleteSuppressions('broadcast', { Suppressions: [{ EmailAddress: 'kept@example.test' }] })).toMatchObject({ Suppressions: [{ Status: 'Deleted' }] });
    expect((await admin.getSuppressions('outbound')).Suppressions.map((s) => s.EmailAddress).sort()).toEqual(['bounced@example.test', 'kept@example.test']);
    await expect(admin.getSuppressions('marketing')).rejects.toMatchObject({ code: 300 });
    await expect(client.getSuppressions('outbound')).rejects.toMatchObject({ code: 10, statusCode: 401 });
  });
});
