import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { createTransport } from 'nodemailer';
import { pauseSending, resumeSending } from '@mailer/operations';
import { MAX_FAILED_AUTHS } from '@mailer/queue';
import { startSubmissionHarness, type SubmissionHarness, type SubmittingAccount } from './testing/submission-harness';

/** Every refusal the listener gives, each with its reply code and enhanced status code. */
let h: SubmissionHarness;
let acme: SubmittingAccount;

/** The value of a counter of the listener's /metrics for these labels. */
const counted = async (counter: 'messages' | 'authFailures' | 'throttled', labels: Record<string, string> = {}) => {
  const metric = await h.deps.metrics[counter].get();
  return metric.values.find((v) => Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value))?.value ?? 0;
};

const message = (overrides: Record<string, unknown> = {}) => ({ from: acme.sender, to: 'ann@example.test', subject: 'Hello', text: 'Hello there.', ...overrides });

beforeAll(async () => {
  h = await startSubmissionHarness();
  acme = await h.account();
});
afterAll(() => h.close());

describe('the session', () => {
  it('advertises SIZE (15 MiB), 8BITMIME, SMTPUTF8, PIPELINING, ENHANCEDSTATUSCODES and AUTH PLAIN LOGIN over TLS', async () => {
    const { session, greeting } = await h.raw();
    expect(greeting).toMatch(/^220 /);
    const ehlo = await session.command('EHLO client.test');
    for (const extension of ['SIZE 15728640', '8BITMIME', 'SMTPUTF8', 'PIPELINING', 'ENHANCEDSTATUSCODES', 'AUTH PLAIN LOGIN']) {
      expect(ehlo.split('\r\n').map((line) => line.slice(4))).toContain(extension);
    }
    session.close();
  });

  it('answers MAIL before AUTH with 530 5.7.0', async () => {
    const { session } = await h.raw();
    await session.command('EHLO client.test');
    expect(await session.command('MAIL FROM:<app@client.test>')).toMatch(/^530 5\.7\.0 /);
    session.close();
  });

  it.each([
    ['a wrong user name', 'postmaster', () => acme.sendingKey],
    ['a wrong key', 'mailer', () => `svc_live_${'x'.repeat(40)}`],
    ['a management key', 'mailer', () => acme.managementKey],
  ])('answers AUTH with %s by 535 5.7.8', async (_name, user, password) => {
    const sent = await h.submit(password(), message(), { user });
    expect(sent).toMatchObject({ accepted: false, responseCode: 535 });
    expect(sent.response).toMatch(/^535 5\.7\.8 /);
  });

  it('takes AUTH LOGIN as well as AUTH PLAIN', async () => {
    const transport = createTransport({
      host: '127.0.0.1',
      port: h.tlsPort,
      secure: true,
      auth: { user: 'mailer', pass: acme.sendingKey, method: 'LOGIN' },
      tls: { rejectUnauthorized: false },
    });
    const info = await transport.sendMail(message());
    transport.close();
    expect(info.response).toMatch(/^250 2\.0\.0 queued as em_/);
  });

  it(`closes to an address for ten minutes after ${MAX_FAILED_AUTHS} failed AUTHs (421 4.7.0), and only to it`, async () => {
    for (let i = 0; i < MAX_FAILED_AUTHS; i++) {
      const sent = await h.submit('svc_live_wrongwrongwrongwrongwrongwrongwrong', message(), { localAddress: '127.0.0.5' });
      expect(sent.responseCode).toBe(535);
    }
    const { greeting } = await h.raw({ localAddress: '127.0.0.5' });
    expect(greeting).toMatch(/^421 4\.7\.0 /);
    const blocked = await h.submit(acme.sendingKey, message(), { localAddress: '127.0.0.5', implicitTls: true });
    expect(blocked).toMatchObject({ accepted: false, responseCode: 421 });
    const elsewhere = await h.submit(acme.sendingKey, message(), { localAddress: '127.0.0.6' });
    expect(elsewhere.accepted).toBe(true);
    expect(await counted('authFailures')).toBeGreaterThanOrEqual(MAX_FAILED_AUTHS);
    expect(await counted('throttled')).toBeGreaterThanOrEqual(2);
  });
});

describe('the envelope', () => {
  it('takes 50 unique recipients and answers the 51st with 452 4.5.3', async () => {
    const session = await h.loggedIn(acme.sendingKey);
    expect(await session.command('MAIL FROM:<app@client.test>')).toMatch(/^250 /);
    for (let i = 0; i < 50; i++) expect(await session.command(`RCPT TO:<r${i}@example.test>`)).toMatch(/^250 /);
    expect(await session.command('RCPT TO:<R0@example.test>')).toMatch(/^250 /);
    expect(await session.command('RCPT TO:<r50@example.test>')).toMatch(/^452 4\.5\.3 /);
    session.close();
  });
});

describe('the message', () => {
  it('refuses a From that is not an allowed sender with 550 5.7.1 sender_not_allowed', async () => {
    const sent = await h.submit(acme.sendingKey, message({ from: 'someone@elsewhere.test' }));
    expect(sent).toMatchObject({ accepted: false, responseCode: 550 });
    expect(sent.response).toMatch(/^550 5\.7\.1 sender_not_allowed: /);
    expect(await counted('messages', { result: 'refused', code: 'sender_not_allowed' })).toBe(1);
  });

  it('refuses mail of a paused account with 550 5.7.1 sending_paused, and takes it again once resumed', async () => {
    const paused = await h.account({ domain: 'paused.test' });
    await pauseSending(h.deps.db, paused.accountId, 'bounce rate over the plan threshold', new Date());
    const refused = await h.submit(paused.sendingKey, { from: paused.sender, to: 'ann@example.test', subject: 'Hi', text: 'Hi.' });
    expect(refused).toMatchObject({ accepted: false, responseCode: 550 });
    expect(refused.response).toMatch(/^550 5\.7\.1 sending_paused: /);
    await resumeSending(h.deps.db, h.deps.deliveryQueue, paused.accountId, 'list cleaned', new Date());
    expect(await h.submit(paused.sendingKey, { from: paused.sender, to: 'ann@example.test', subject: 'Hi', text: 'Hi.' })).toMatchObject({ accepted: true });
  });

  it('refuses what POST /v1/emails refuses with 550 5.6.0 and the first problem', async () => {
    const noSubject = await h.submit(acme.sendingKey, message({ subject: '' }));
    expect(noSubject.response).toMatch(/^550 5\.6\.0 validation_error: subject /);
    const badTag = await h.submit(acme.sendingKey, message({ headers: { 'X-Mailer-Tag': 'no-equals-sign' } }));
    expect(badTag.response).toMatch(/^550 5\.6\.0 validation_error: tags /);
    // A message whose recipients are all BCC is not refused (docs/api-decisions.md, "SMTP submission").
    const onlyBcc = await h.submit(acme.sendingKey, { ...message({ to: 'undisclosed-recipients:;' }), envelope: { from: 'app@client.test', to: ['ann@example.test'] } });
    expect(onlyBcc.response).toMatch(/^250 2\.0\.0 queued as em_/);
  });

  it('answers an exhausted plan window with 452 4.5.3 and the seconds until the message fits', async () => {
    const small = await h.account({ domain: 'small.test', limits: { perMinute: 2 } });
    const first = await h.submit(small.sendingKey, { from: small.sender, to: 'ann@example.test', subject: 'One', text: 'One.' });
    expect(first.accepted).toBe(true);
    const second = await h.submit(small.sendingKey, { from: small.sender, to: ['ann@example.test', 'bob@example.test'], subject: 'Two', text: 'Two.' });
    expect(second).toMatchObject({ accepted: false, responseCode: 452 });
    expect(second.response).toMatch(/^452 4\.5\.3 rate_limit_exceeded: .*try again in \d+ seconds$/);
  });

  it('answers a message whose recipients alone exceed a plan window with 550 5.5.3 plan_limit_exceeded, naming the window', async () => {
    const tiny = await h.account({ domain: 'tiny.test', limits: { perMinute: 2 } });
    const refused = await h.submit(tiny.sendingKey, { from: tiny.sender, to: ['ann@example.test', 'bob@example.test', 'cy@example.test'], subject: 'Three', text: 'Three.' });
    expect(refused).toMatchObject({ accepted: false, responseCode: 550 });
    expect(refused.response).toMatch(/^550 5\.5\.3 plan_limit_exceeded: plan\.per_minute /);
  });

  it('takes a message up to 15 MiB and answers a larger one with 552 5.3.4', async () => {
    // 10 MiB of attachments (the most POST /v1/emails takes), about 13.5 MiB once base64-encoded.
    const fiveMiB = Buffer.alloc(5 * 1024 * 1024, 7);
    const fits = await h.submit(acme.sendingKey, message({ attachments: [{ filename: 'a.bin', content: fiveMiB }, { filename: 'b.bin', content: fiveMiB }] }));
    expect(fits.response).toMatch(/^250 /);
    const session = await h.loggedIn(acme.sendingKey);
    await session.command('MAIL FROM:<app@client.test>');
    await session.command('RCPT TO:<ann@example.test>');
    expect(await session.command('DATA')).toMatch(/^354 /);
    const line = `${'a'.repeat(998)}\r\n`;
    const lines = Math.ceil((15 * 1024 * 1024 + 1) / line.length);
    session.write(`From: ${acme.sender}\r\nTo: ann@example.test\r\nSubject: Too big\r\n\r\n`);
    for (let i = 0; i < lines; i += 1024) session.write(line.repeat(Math.min(1024, lines - i)));
    session.write('.\r\n');
    expect(await session.reply()).toMatch(/^552 5\.3\.4 /);
    session.close();
  });

  it('answers 451 4.3.0 when the database goes away during the session, so the client retries', async () => {
    // The listener reaches PostgreSQL through a proxy that the test then takes away: connections reset, then refused.
    const database = new URL(h.config.databaseUrl);
    const links = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect({ host: database.hostname, port: Number(database.port || 5432) });
      for (const socket of [client, upstream]) {
        links.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => [client, upstream].forEach((s) => s.destroy()));
      }
      client.pipe(upstream).pipe(client);
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const viaProxy = new URL(h.config.databaseUrl);
    viaProxy.port = String((proxy.address() as AddressInfo).port);
    const away = await startSubmissionHarness({ DATABASE_URL: viaProxy.toString() });
    try {
      const session = await away.loggedIn(acme.sendingKey);
      await session.command('MAIL FROM:<app@client.test>');
      await session.command('RCPT TO:<ann@example.test>');
      expect(await session.command('DATA')).toMatch(/^354 /);
      proxy.close();
      for (const socket of links) socket.destroy();
      session.write(`From: ${acme.sender}\r\nTo: ann@example.test\r\nSubject: Later\r\n\r\nLater.\r\n.\r\n`);
      expect(await session.reply()).toMatch(/^451 4\.3\.0 /);
      session.close();
    } finally {
      await away.close();
    }
    expect(await h.deps.db`select id from emails where account_id = ${acme.accountId} and subject = 'Later'`).toHaveLength(0);
  });
});
