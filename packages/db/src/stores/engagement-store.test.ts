import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { createEngagementRecorder, createTrackedDeliveryLookup } from './engagement-store';

/** Opens and clicks that arrive together (docs/api-decisions.md, "Opens and clicks"): shared look-ups and writes, each with its own answer. */
let database: DatabaseHandle;
let email: Awaited<ReturnType<typeof insertQueuedEmail>>;
let other: Awaited<ReturnType<typeof insertQueuedEmail>>;

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));
const engagement = { userAgent: 'Mail', proxy: null };

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
  const accountId = (await createAccount(database.db, 'Engagement')).account.id;
  const domain = await insertReadyDomain(database.db, Buffer.alloc(32, 1), accountId, 'engagement.test');
  const sender = await insertSender(database.db, accountId, domain.id, 'news@engagement.test');
  const queued = () => insertQueuedEmail(database.db, { accountId, senderId: sender.id, domainId: domain.id, from: sender.email, to: ['ann@example.test'], bcc: ['bob@example.test'], createdAt: at(0) });
  email = await queued();
  other = await queued();
  await database.db`update deliveries set status = 'accepted' where email_id = any(${[email.id, other.id]}::text[]) and kind = 'to'`;
  await database.db`update emails set tracked_links = '["https://shop.test/"]'::jsonb where id = ${email.id}`;
});
afterAll(() => database.close());

it('looks up concurrent tokens together, each its own delivery', async () => {
  const lookup = createTrackedDeliveryLookup(database.db);
  const [ann, bob] = email.deliveries;
  const found = await Promise.all([ann!.id, 'dlv_unknown', bob!.id, other.deliveries[0]!.id].map((id) => lookup.submit(id)));
  expect(found).toEqual([{ emailId: email.id, trackedLinks: ['https://shop.test/'] }, undefined, { emailId: email.id, trackedLinks: ['https://shop.test/'] }, { emailId: other.id, trackedLinks: null }]);
});

it('records concurrent opens and clicks of several messages, each answered, the first of each stamping its delivery', async () => {
  const recorder = createEngagementRecorder(database.db);
  const ann = email.deliveries.find((d) => d.kind === 'to')!.id;
  const bcc = email.deliveries.find((d) => d.kind === 'bcc')!.id;
  const otherAnn = other.deliveries.find((d) => d.kind === 'to')!.id;
  const outcomes = await Promise.all([
    ...[1, 2, 3, 4, 5].map((s) => recorder.submit({ emailId: email.id, deliveryId: ann, observation: 'opened', at: at(s), engagement })),
    ...[6, 7].map((s) => recorder.submit({ emailId: email.id, deliveryId: ann, observation: 'clicked', at: at(s), engagement: { ...engagement, url: 'https://shop.test/' } })),
    recorder.submit({ emailId: other.id, deliveryId: otherAnn, observation: 'opened', at: at(8), engagement }),
    recorder.submit({ emailId: email.id, deliveryId: bcc, observation: 'opened', at: at(9), engagement }),
    recorder.submit({ emailId: 'em_gone', deliveryId: 'dlv_gone', observation: 'opened', at: at(10), engagement }),
  ]);
  expect(outcomes).toEqual([...Array(8).fill({ kind: 'recorded' }), { kind: 'none', reason: 'unknown' }, { kind: 'none', reason: 'unknown' }]);
  const events = await database.db`select email_id, type, count(*)::int as n from events where type in ('opened', 'clicked') group by email_id, type order by email_id, type`;
  expect(events.map((e) => [e.email_id, e.type, e.n]).sort()).toEqual([[email.id, 'clicked', 2], [email.id, 'opened', 5], [other.id, 'opened', 1]].sort());
  const [stamps] = await database.db`select opened_at, clicked_at from deliveries where id = ${ann}`;
  expect(stamps).toEqual({ opened_at: at(1), clicked_at: at(6) });
  expect((await database.db`select opened_at from deliveries where id = ${bcc}`)[0]!.opened_at).toBeNull();
});
