import fc from 'fast-check';
import {
  applyDeliveryReport,
  applyQueueAction,
  cancelEmail,
  claimMessages,
  createAccount,
  createWebhookEndpoint,
  expireHeldDeliveries,
  makeDeferredDeliveriesDue,
  openDatabase,
  releaseLease,
  setAccountPlan,
  unsubscribeDelivery,
  writeAttempts,
  type DatabaseHandle,
  type DeliveryDecision,
  type Lease,
} from '../index';
import {
  deriveMessageCause,
  deriveMessageStatus,
  isTerminal,
  QUEUE_ACTIONS,
  reportFinding,
  suppressesRecipient,
  WEBHOOK_EVENT_TYPES,
  type DeliveryCause,
  type DeliveryStatus,
  type QueueAction,
} from '@mailer/domain';
import { createTestDatabase, insertQueuedEmail, insertReadyDomain, insertSender } from '@mailer/testing';

/**
 * The transition writer against a recount: random sequences of everything that changes
 * deliveries (intake with suppressed recipients, claims, takeovers of expired leases,
 * attempt records, releases, cancels, DSNs, complaints and unsubscribes, operator retries, holds, releases,
 * deletes and flushes, and the expiry of holds), then every
 * counter, message status, suppression, attempt and webhook event is compared with what the
 * rows say it must be.
 */
let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 4);
});
afterAll(() => database.close());

const LEASE_MS = 60_000;
const causes: Record<'deferred' | 'bounced' | 'failed', DeliveryCause[]> = {
  deferred: [{ code: 'greylisted', permanent: false, smtp_code: 451, enhanced_status: '4.7.1' }],
  bounced: [
    { code: 'recipient_unknown', permanent: true, smtp_code: 550, enhanced_status: '5.1.1' },
    { code: 'message_rejected', permanent: true, smtp_code: 554, enhanced_status: '5.7.1' },
  ],
  failed: [{ code: 'retries_exhausted', permanent: true, smtp_code: 450, enhanced_status: '4.2.0' }],
};

type Op =
  | { kind: 'send'; to: number; cc: number; bcc: number; suppressFirst: boolean }
  | { kind: 'claim'; message: number; expired: boolean }
  | { kind: 'record'; lease: number; outcomes: number[] }
  | { kind: 'release'; lease: number; postpone: boolean }
  | { kind: 'cancel'; message: number }
  | { kind: 'report'; message: number; delivery: number; report: 'bounce' | 'delay' | 'complaint' }
  | { kind: 'unsubscribe'; message: number; delivery: number }
  | { kind: 'made_due'; message: number }
  | { kind: 'queue'; action: QueueAction; message: number }
  | { kind: 'expire_holds' };

const index = fc.nat({ max: 20 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), to: fc.integer({ min: 1, max: 3 }), cc: fc.nat({ max: 1 }), bcc: fc.nat({ max: 2 }), suppressFirst: fc.boolean() }),
  fc.record({ kind: fc.constant('claim' as const), message: index, expired: fc.boolean() }),
  fc.record({ kind: fc.constant('record' as const), lease: index, outcomes: fc.array(fc.nat({ max: 6 }), { minLength: 6, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('release' as const), lease: index, postpone: fc.boolean() }),
  fc.record({ kind: fc.constant('cancel' as const), message: index }),
  fc.record({ kind: fc.constant('report' as const), message: index, delivery: index, report: fc.constantFrom('bounce' as const, 'delay' as const, 'complaint' as const) }),
  fc.record({ kind: fc.constant('unsubscribe' as const), message: index, delivery: index }),
  fc.record({ kind: fc.constant('made_due' as const), message: index }),
  fc.record({ kind: fc.constant('queue' as const), action: fc.constantFrom(...QUEUE_ACTIONS), message: index }),
  fc.record({ kind: fc.constant('expire_holds' as const) }),
);

/** The maximum age the expiry of holds runs with: a few operations' worth of the test's clock. */
const HELD_MAX_AGE_MS = 5_000;

const OUTCOMES = ['accepted', 'accepted', 'deferred', 'bounced', 'bounced', 'failed', 'accepted'] as const;

async function run(ops: Op[]) {
  const { db } = database;
  const accountId = (await createAccount(db, 'Transitions')).account.id;
  await setAccountPlan(db, accountId, { perMinute: 1e6, perHour: 1e6, perDay: 1e6, per30Days: 1e6, maxActive: 1e6 });
  const domain = await insertReadyDomain(db, Buffer.alloc(32, 3), accountId, `${accountId.toLowerCase()}.test`);
  const sender = await insertSender(db, accountId, domain.id, `hello@${domain.name}`);
  await createWebhookEndpoint(db, { accountId, url: 'https://hooks.example/', events: [...WEBHOOK_EVENT_TYPES], description: null, secretSealed: 's', now: new Date() });
  const messages: string[] = [];
  const leases: Lease[] = [];
  let clock = Date.now();
  let recipient = 0;
  const pick = <T>(items: readonly T[], i: number) => (items.length === 0 ? undefined : items[i % items.length]);

  for (const o of ops) {
    const now = new Date((clock += 1000));
    switch (o.kind) {
      case 'send': {
        const addresses = (n: number) => Array.from({ length: n }, () => `r${++recipient}@rcpt.example`);
        const to = addresses(o.to);
        const email = await insertQueuedEmail(db, {
          accountId,
          senderId: sender.id,
          domainId: domain.id,
          from: sender.email,
          to,
          cc: addresses(o.cc),
          bcc: addresses(o.bcc),
          createdAt: now,
          suppressed: o.suppressFirst ? [to[0]!] : [],
        });
        messages.push(email.id);
        break;
      }
      case 'claim': {
        const id = pick(messages, o.message);
        // An expired claim comes after every lease held has run out: it takes them over.
        if (o.expired) clock += LEASE_MS + 1000;
        const claim = id && (await claimMessages(db, [id], new Date(clock), LEASE_MS)).get(id);
        if (claim && claim.lease.deliveries.length > 0) leases.push(claim.lease);
        break;
      }
      case 'record': {
        const lease = pick(leases, o.lease);
        if (!lease) break;
        const decisions = lease.deliveries.map((d, i): DeliveryDecision => {
          const status = OUTCOMES[o.outcomes[i % o.outcomes.length]!]!;
          if (status === 'accepted') return { deliveryId: d.id, status, cause: null };
          const cause = pick(causes[status], o.outcomes[i % o.outcomes.length]!)!;
          return { deliveryId: d.id, status, cause, ...(status === 'deferred' ? { nextAttemptAt: new Date(clock + 5000) } : {}) };
        });
        const outcome = deriveMessageStatus(decisions.map((d) => d.status)) as DeliveryDecision['status'];
        await writeAttempts(db, [{ lease, attempt: { startedAt: now, endedAt: now, outcome, cause: decisions.find((d) => d.status === outcome)!.cause, transport: null }, decisions }]);
        break;
      }
      case 'release': {
        const lease = pick(leases, o.lease);
        // Postponed (no warm-up allowance left today) or released: given back unattempted either way.
        if (lease) await releaseLease(db, lease, lease.deliveries.map((d) => d.id), now, o.postpone ? { reason: 'postponed', dueAt: new Date(clock + 86_400_000) } : undefined);
        break;
      }
      case 'cancel': {
        const id = pick(messages, o.message);
        if (id) await cancelEmail(db, { accountId, test: false }, id, now);
        break;
      }
      case 'report': {
        const id = pick(messages, o.message);
        if (!id) break;
        const deliveries = await db`select id, recipient from deliveries where email_id = ${id} order by id`;
        const delivery = pick(deliveries, o.delivery)!;
        const report =
          o.report === 'bounce'
            ? reportFinding({ kind: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 no such user' })
            : o.report === 'delay'
              ? reportFinding({ kind: 'delayed', status: '4.4.7', diagnosticCode: null })
              : reportFinding({ kind: 'complaint', feedbackType: 'abuse' });
        await applyDeliveryReport(db, { deliveryId: delivery.id, domain: domain.name, recipients: [delivery.recipient], report, at: now });
        break;
      }
      case 'unsubscribe': {
        const id = pick(messages, o.message);
        if (!id) break;
        const deliveries = await db`select id from deliveries where email_id = ${id} order by id`;
        await unsubscribeDelivery(db, pick(deliveries, o.delivery)!.id, now);
        break;
      }
      case 'made_due': {
        const id = pick(messages, o.message);
        if (id) await makeDeferredDeliveriesDue(db, id, now);
        break;
      }
      case 'queue': {
        const id = pick(messages, o.message);
        if (id) await applyQueueAction(db, o.action, { emailId: id }, now);
        break;
      }
      case 'expire_holds':
        await expireHeldDeliveries(db, now, HELD_MAX_AGE_MS);
        break;
    }
  }
  await recount(accountId, sender.id);
}

const count = (rows: readonly { status: DeliveryStatus }[], status: DeliveryStatus) => rows.filter((r) => r.status === status).length;

async function recount(accountId: string, senderId: string) {
  const { db } = database;
  const deliveries = await db`
    select id, email_id, recipient, kind, status, cause, attempt_count, updated_at, lease_token, complained_at, unsubscribed_at, held_at
      from deliveries where account_id = ${accountId} order by id`;
  const [usage] = await db`select active_deliveries from account_usage where account_id = ${accountId}`;
  expect(usage!.active_deliveries).toBe(deliveries.filter((d) => !isTerminal(d.status)).length);
  const [sender] = await db`select accepted_count, bounced_count, failed_count, deferred_count from senders where id = ${senderId}`;
  expect(sender).toEqual({
    accepted_count: count(deliveries as never, 'accepted'),
    bounced_count: count(deliveries as never, 'bounced'),
    failed_count: count(deliveries as never, 'failed'),
    deferred_count: count(deliveries as never, 'deferred'),
  });
  for (const d of deliveries) expect(d.lease_token !== null).toBe(d.status === 'sending');
  // Only a waiting delivery is ever held.
  for (const d of deliveries) if (d.held_at !== null) expect(['queued', 'deferred']).toContain(d.status);

  const emails = await db`select id, status, cause from emails where account_id = ${accountId}`;
  for (const e of emails) {
    const own = deliveries.filter((d) => d.email_id === e.id).map((d) => ({ status: d.status, cause: d.cause, updatedAt: d.updated_at }));
    const status = deriveMessageStatus(own.map((d) => d.status));
    expect({ id: e.id, status: e.status, cause: e.cause }).toEqual({ id: e.id, status, cause: deriveMessageCause(own, status) });
  }

  // Each attempt counted once on every delivery it decided.
  const [attempts] = await db`
    select coalesce(sum(jsonb_array_length(a.recipients) + a.bcc_recipients), 0)::int as decided
      from attempts a join emails e on e.id = a.email_id where e.account_id = ${accountId}`;
  expect(attempts!.decided).toBe(deliveries.reduce((sum, d) => sum + d.attempt_count, 0));

  // One webhook event per history event of a reported type (the endpoint subscribes to all).
  const history = await db`
    select v.type, count(*)::int as n from events v join emails e on e.id = v.email_id where e.account_id = ${accountId} group by v.type`;
  const outbox = await db`select type, count(*)::int as n from webhook_events where account_id = ${accountId} group by type`;
  const byType = (rows: readonly { type: string; n: number }[], type: string) => rows.find((r) => r.type === type)?.n ?? 0;
  for (const type of ['accepted', 'deferred', 'bounced', 'failed', 'complained', 'unsubscribed']) {
    expect({ type, outbox: byType(outbox as never, `email.${type}`) }).toEqual({ type, outbox: byType(history as never, type) });
  }
  expect(byType(history as never, 'complained')).toBe(deliveries.filter((d) => d.complained_at !== null).length);
  expect(byType(history as never, 'unsubscribed')).toBe(deliveries.filter((d) => d.unsubscribed_at !== null).length);
  // An unsubscribe only ever follows acceptance.
  for (const d of deliveries) if (d.unsubscribed_at !== null) expect(['accepted', 'bounced']).toContain(d.status);

  // Suppressed: the to/cc recipients that bounced for good, complained or unsubscribed, and those suppressed at intake.
  const suppressions = await db`select email, reason from suppressions where account_id = ${accountId}`;
  const bounced = deliveries.filter((d) => suppressesRecipient({ kind: d.kind, status: d.status, cause: d.cause })).map((d) => d.recipient);
  const complained = deliveries.filter((d) => d.kind !== 'bcc' && d.complained_at !== null).map((d) => d.recipient);
  const unsubscribed = deliveries.filter((d) => d.kind !== 'bcc' && d.unsubscribed_at !== null).map((d) => d.recipient);
  const expected = new Set([...bounced, ...complained, ...unsubscribed]);
  expect(new Set(suppressions.map((s) => s.email))).toEqual(expected);
}

it('keeps counters, message statuses, attempts, suppressions and the outbox equal to a recount from the rows', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), (ops) => run(ops)),
    { numRuns: 25 },
  );
}, 120_000);
