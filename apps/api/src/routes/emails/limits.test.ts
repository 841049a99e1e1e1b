import { claimMessages, writeAttempts, type DeliveryDecision, type Lease } from '@mailer/db';
import type { AttemptRecord, DeliveryCause } from '@mailer/domain';
import { startTestApi, type TestApi } from '../../testing';
import { sendingAccount, type SendingAccount, type SendingAccountOptions } from '../../testing/sending-account';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => {
  api.clock.now = undefined;
});

const T0 = new Date('2030-06-01T00:00:00.000Z').getTime();
const MINUTE = 60_000;

const attemptAt = (at: number, outcome: AttemptRecord['outcome'], cause: DeliveryCause | null): AttemptRecord => ({
  startedAt: new Date(at),
  endedAt: new Date(at),
  outcome,
  cause,
  transport: null,
});

const decide = (lease: Lease, status: DeliveryDecision['status'], cause: DeliveryCause | null, nextAttemptAt?: Date): DeliveryDecision[] =>
  lease.deliveries.map((d) => ({ deliveryId: d.id, status, cause, nextAttemptAt }));
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let domainCounter = 0;

const account = (options: SendingAccountOptions = {}) => sendingAccount(api, { domain: `limits${++domainCounter}.test`, ...options });
const recipients = (n: number, tag = 'r') => Array.from({ length: n }, (_, i) => `${tag}${i}@example.test`);

async function sendAt(acc: SendingAccount, at: number, count: number) {
  api.clock.now = new Date(at);
  return acc.send(acc.message({ to: recipients(count, `t${at}-`) }));
}

/** Rows a refused request must not leave behind: its message, deliveries, events and attachments (events of no message included). */
const storedRows = async (accountId: string) =>
  (
    await api.deps.db`
      select (select count(*) from emails where account_id = ${accountId})::int as emails,
             (select count(*) from deliveries where account_id = ${accountId})::int as deliveries,
             (select count(*) from events v left join emails e on e.id = v.email_id where e.account_id = ${accountId} or e.id is null)::int as events,
             (select count(*) from attachments a join emails e on e.id = a.email_id where e.account_id = ${accountId})::int as attachments`
  )[0];

const usedRecipients = async (accountId: string) =>
  Number((await api.deps.db`select coalesce(sum(recipients), 0) as n from recipient_usage where account_id = ${accountId}`)[0]!.n);

describe('free plan windows (429 rate_limit_exceeded)', () => {
  it('allows 30 recipient-emails per rolling minute and says when more fit', async () => {
    const acc = await account();
    const first = await sendAt(acc, T0, 30);
    expect(first.status).toBe(202);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '30', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' });

    const refused = await sendAt(acc, T0 + 10_000, 1);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(refused.headers['retry-after']).toBe('50');
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '30', 'ratelimit-remaining': '0', 'ratelimit-reset': '50' });
    expect((await sendAt(acc, T0 + MINUTE - 1, 1)).headers['retry-after']).toBe('1');
    expect(await usedRecipients(acc.accountId)).toBe(30);

    const later = await sendAt(acc, T0 + MINUTE, 1);
    expect(later.status).toBe(202);
  });

  it('refuses a request whole when it would cross a window', async () => {
    const acc = await account();
    expect((await sendAt(acc, T0, 20)).status).toBe(202);
    api.clock.now = new Date(T0 + 1000);
    const attachment = { filename: 'receipt.txt', content_base64: Buffer.from('refused').toString('base64') };
    const res = await acc.send(acc.message({ to: recipients(11, 'refused-'), attachments: [attachment] }));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('59');
    expect(await storedRows(acc.accountId)).toEqual({ emails: 1, deliveries: 20, events: 1, attachments: 0 });
    expect((await sendAt(acc, T0 + 2000, 10)).status).toBe(202);
    expect(await usedRecipients(acc.accountId)).toBe(30);
  });

  it('allows 300 per rolling 24 hours, and the hour window as well', async () => {
    // The free plan's windows; active deliveries out of the way (the daemon would end them meanwhile).
    const acc = await account({ limits: { maxActive: 10_000 } });
    for (let minute = 0; minute < 10; minute++) expect((await sendAt(acc, T0 + minute * MINUTE, 30)).status).toBe(202);
    const full = await sendAt(acc, T0 + 10 * MINUTE, 1);
    expect(full.status).toBe(429);
    // Both the hour and the 24 hours are full; the day frees its first 30 only at T0 + 24 h.
    expect(full.headers['retry-after']).toBe(String((DAY - 10 * MINUTE) / 1000));
    expect(full.headers['ratelimit-limit']).toBe('300');
    expect(full.headers['ratelimit-remaining']).toBe('0');
    expect((await sendAt(acc, T0 + HOUR, 1)).status).toBe(429);
    expect((await sendAt(acc, T0 + DAY, 30)).status).toBe(202);
    expect((await sendAt(acc, T0 + DAY + 1000, 1)).status).toBe(429);
  });

  it('counts the hour and the 30 days on custom plans', async () => {
    const acc = await account({ limits: { perMinute: 100, perHour: 5, perDay: 100, per30Days: 12, maxActive: 100 } });
    expect((await sendAt(acc, T0, 5)).status).toBe(202);
    const hourFull = await sendAt(acc, T0 + 30 * MINUTE, 1);
    expect(hourFull.status).toBe(429);
    expect(hourFull.headers['retry-after']).toBe(String(30 * 60));
    expect((await sendAt(acc, T0 + HOUR, 5)).status).toBe(202);
    expect((await sendAt(acc, T0 + 10 * DAY, 2)).status).toBe(202);
    const monthFull = await sendAt(acc, T0 + 20 * DAY, 1);
    expect(monthFull.status).toBe(429);
    expect(monthFull.headers['retry-after']).toBe(String((30 * DAY - 20 * DAY) / 1000));
    expect((await sendAt(acc, T0 + 30 * DAY, 5)).status).toBe(202);
  });

  it('counts unique recipients once, replays and refusals not at all', async () => {
    const acc = await account();
    api.clock.now = new Date(T0);
    const res = await acc.send(acc.message({ to: ['a@example.test', 'A@EXAMPLE.test'], cc: ['a@example.test', 'b@example.test'], bcc: ['b@example.test'] }), 'k');
    expect(res.status).toBe(202);
    expect(res.headers['ratelimit-remaining']).toBe('28');
    expect((await acc.send(acc.message({ to: ['a@example.test', 'A@EXAMPLE.test'], cc: ['a@example.test', 'b@example.test'], bcc: ['b@example.test'] }), 'k')).headers['ratelimit-remaining']).toBe('28');
    expect(await usedRecipients(acc.accountId)).toBe(2);
  });
});

describe('requests that can never fit (422 plan_limit_exceeded)', () => {
  it('refuses a message whose unique recipients alone exceed a window, naming every such window, with no Retry-After', async () => {
    const acc = await account();
    const res = await sendAt(acc, T0, 31);
    expect(res.status).toBe(422);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.headers['ratelimit-limit']).toBe('30');
    expect(res.body.error.code).toBe('plan_limit_exceeded');
    expect(res.body.error.details).toEqual([{ path: 'plan.per_minute', message: 'more unique recipients than the 30 the plan allows per minute' }]);
    expect(await storedRows(acc.accountId)).toEqual({ emails: 0, deliveries: 0, events: 0, attachments: 0 });
    expect(await usedRecipients(acc.accountId)).toBe(0);
  });

  it('judges unique recipients, so duplicates do not make a request too large, and names each window it exceeds', async () => {
    const acc = await account({ limits: { perMinute: 2, perHour: 3 } });
    const twice = recipients(2).flatMap((r) => [r, r.toUpperCase()]);
    api.clock.now = new Date(T0);
    expect((await acc.send(acc.message({ to: twice }))).status).toBe(202);
    const res = await sendAt(acc, T0 + 1000, 4);
    expect(res.body.error).toMatchObject({ code: 'plan_limit_exceeded', details: [{ path: 'plan.per_minute' }, { path: 'plan.per_hour' }] });
  });

  it('answers 429, not 422, to a request that fits the limit but not the usage left', async () => {
    const acc = await account();
    expect((await sendAt(acc, T0, 1)).status).toBe(202);
    const res = await sendAt(acc, T0 + 1000, 30);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
  });
});

describe('active deliveries (429 active_delivery_limit_exceeded)', () => {
  it('allows at most 250 queued, sending or deferred deliveries on the free plan', async () => {
    const acc = await account();
    for (let minute = 0; minute < 8; minute++) expect((await sendAt(acc, T0 + minute * MINUTE, 30)).status).toBe(202);
    expect((await sendAt(acc, T0 + 8 * MINUTE, 10)).status).toBe(202);
    const res = await sendAt(acc, T0 + 9 * MINUTE, 1);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('active_delivery_limit_exceeded');
    expect(res.headers['retry-after']).toBe('30');
    expect(res.headers['ratelimit-limit']).toBeDefined();
  });

  it('frees room as deliveries end, whoever ends them', async () => {
    const acc = await account({ limits: { perMinute: 100, perHour: 100, perDay: 100, per30Days: 100, maxActive: 3 } });
    const sent = await sendAt(acc, T0, 3);
    expect(sent.status).toBe(202);
    expect((await sendAt(acc, T0 + 1000, 1)).body.error.code).toBe('active_delivery_limit_exceeded');
    // The delivery daemon's own writers move deliveries along; only terminal ones stop counting.
    const leased = (await claimMessages(api.deps.db, [sent.body.id], new Date(T0 + 1500), MINUTE)).get(sent.body.id)!.lease;
    expect(leased.deliveries).toHaveLength(3);
    expect((await sendAt(acc, T0 + 2000, 1)).status).toBe(429);
    const deferral = { code: 'greylisted' as const, permanent: false, smtp_code: 451, enhanced_status: '4.7.1' };
    await writeAttempts(api.deps.db, [{ lease: leased, attempt: attemptAt(T0 + 2500, 'deferred', deferral), decisions: decide(leased, 'deferred', deferral, new Date(T0 + 2600)) }]);
    expect((await sendAt(acc, T0 + 3000, 1)).status).toBe(429);
    const retried = (await claimMessages(api.deps.db, [sent.body.id], new Date(T0 + 3500), MINUTE)).get(sent.body.id)!.lease;
    await writeAttempts(api.deps.db, [{ lease: retried, attempt: attemptAt(T0 + 3600, 'accepted', null), decisions: decide(retried, 'accepted', null) }]);
    expect((await sendAt(acc, T0 + 4000, 3)).status).toBe(202);
    expect((await sendAt(acc, T0 + 5000, 1)).status).toBe(429);
  });
});

describe('concurrent requests against a limit', () => {
  it('never lets 20 parallel requests exceed the minute window together', async () => {
    const acc = await account();
    api.clock.now = new Date(T0);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => acc.send(acc.message({ to: recipients(2, `p${i}-`) }))));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(15);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    for (const answer of answers) expect(answer.headers['ratelimit-limit']).toBe('30');
    expect(await usedRecipients(acc.accountId)).toBe(30);
    expect(await storedRows(acc.accountId)).toEqual({ emails: 15, deliveries: 30, events: 15, attachments: 0 });
  });
});
