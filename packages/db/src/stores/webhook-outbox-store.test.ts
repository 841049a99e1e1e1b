import { isIdOf, type WebhookEventType } from '@mailer/domain';
import { createTestDatabase, insertWebhookEndpoint } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { inTransaction } from '../transaction';
import { createAccount } from './accounts-store';
import { webhookEventsOutbox, type DataEvent, type DeliveryEvent } from './webhook-outbox-store';
import { deleteWebhookEndpoint, updateWebhookEndpoint, type WebhookEndpoint } from './webhooks-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

const newAccount = async () => (await createAccount(database.db, 'Outbox')).account.id;

const endpointOf = (accountId: string, events: WebhookEventType[], format: WebhookEndpoint['format'] = 'default') =>
  insertWebhookEndpoint(database.db, { accountId, url: 'https://hooks.example.com/in', events, format, description: null, secretSealed: 'sealed', now: new Date() });

const acceptedEvent = (accountId: string, i: number, recipientKind: DeliveryEvent['recipientKind'] = 'to'): DeliveryEvent => ({
  accountId,
  type: 'email.accepted',
  emailId: `em_outbox${i}`,
  recipient: recipientKind === 'bcc' ? null : `r${i}@example.com`,
  recipientKind,
  status: 'accepted',
  cause: null,
  attemptCount: 1,
  at: new Date(),
});

const write = (events: (DeliveryEvent | DataEvent)[]) => inTransaction(database.db, (tx) => tx.commit(webhookEventsOutbox(tx, events)));

const deliveriesOf = (accountId: string) =>
  database.db`
    select d.id, d.endpoint_id, d.status, d.next_attempt_at, e.type, e.email_id, e.recipient_kind, e.occurred_at
      from webhook_deliveries d join webhook_events e on e.id = d.event_id
     where d.account_id = ${accountId} order by d.endpoint_id, e.email_id`;

describe('webhookEventsOutbox', () => {
  it('writes one delivery per event and subscribed endpoint, each with an id of the shape isIdOf expects', async () => {
    const account = await newAccount();
    const subscribed = [await endpointOf(account, ['email.accepted']), await endpointOf(account, ['email.accepted', 'email.bounced']), await endpointOf(account, ['email.accepted'])];
    await endpointOf(account, ['email.bounced']);
    await write([acceptedEvent(account, 1), acceptedEvent(account, 2)]);
    const rows = await database.db`select id, endpoint_id from webhook_deliveries where account_id = ${account}`;
    expect(rows.map((r) => r.endpoint_id).sort()).toEqual(subscribed.flatMap((e) => [e.id, e.id]).sort());
    expect(new Set(rows.map((r) => r.id)).size).toBe(6);
    for (const { id } of rows) expect(isIdOf('webhookDelivery', id)).toBe(true);
  });

  it('writes each event once, however many endpoints it fans out to, and its deliveries pending and due when it occurred', async () => {
    const account = await newAccount();
    const [a, b] = [await endpointOf(account, ['email.accepted']), await endpointOf(account, ['email.accepted'])];
    const event = { ...acceptedEvent(account, 1), at: new Date('2030-01-01T10:00:00.000Z') };
    await write([event]);
    const rows = await deliveriesOf(account);
    expect(rows.map((r) => ({ endpoint: r.endpoint_id, status: r.status, due: r.next_attempt_at, at: r.occurred_at }))).toEqual(
      [a, b].map((e) => ({ endpoint: e.id, status: 'pending', due: event.at, at: event.at })).sort((x, y) => (x.endpoint < y.endpoint ? -1 : 1)),
    );
    expect(await database.db`select type, email_id, recipient, status, attempt_count from webhook_events where account_id = ${account}`).toEqual([
      { type: 'email.accepted', email_id: 'em_outbox1', recipient: 'r1@example.com', status: 'accepted', attempt_count: 1 },
    ]);
  });

  it('writes nothing of an event no enabled endpoint of its own account wants', async () => {
    const account = await newAccount();
    const other = await newAccount();
    await endpointOf(other, ['email.accepted']);
    await endpointOf(account, ['email.bounced']);
    const disabled = await endpointOf(account, ['email.accepted']);
    await updateWebhookEndpoint(database.db, disabled, { status: 'disabled' }, new Date());
    const deleted = await endpointOf(account, ['email.accepted']);
    expect(await deleteWebhookEndpoint(database.db, account, deleted.id, new Date())).toBe(true);
    await write([acceptedEvent(account, 1)]);
    expect(await database.db`select id from webhook_events where account_id = ${account}`).toEqual([]);
    expect(await deliveriesOf(account)).toEqual([]);
  });

  it("sends a BCC delivery's event only to formats that send them, and an event type only to formats that have a shape for it", async () => {
    const account = await newAccount();
    const plain = await endpointOf(account, ['email.accepted', 'domain.status_changed']);
    const resend = await endpointOf(account, ['email.accepted', 'domain.status_changed'], 'resend');
    const domainEvent: DataEvent = { accountId: account, type: 'domain.status_changed', data: { id: 'dom_x' }, at: new Date() };
    await write([acceptedEvent(account, 1, 'to'), acceptedEvent(account, 2, 'bcc'), domainEvent]);
    const byEndpoint = (endpoint: WebhookEndpoint) =>
      deliveriesOf(account).then((rows) => rows.filter((r) => r.endpoint_id === endpoint.id).map((r) => `${r.type} ${r.recipient_kind ?? '-'}`).sort());
    expect(await byEndpoint(plain)).toEqual(['domain.status_changed -', 'email.accepted bcc', 'email.accepted to']);
    expect(await byEndpoint(resend)).toEqual(['email.accepted to']);
  });

  it('sends an event that targets one endpoint to that endpoint alone, whatever the types it subscribes to', async () => {
    const account = await newAccount();
    const target = await endpointOf(account, ['email.bounced']);
    await endpointOf(account, ['email.received']);
    await write([{ accountId: account, type: 'email.received', data: { id: 'inb_x' }, at: new Date(), endpointId: target.id }]);
    expect((await deliveriesOf(account)).map((r) => [r.endpoint_id, r.type])).toEqual([[target.id, 'email.received']]);
  });
});
