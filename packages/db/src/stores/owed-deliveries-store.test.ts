import fc from 'fast-check';
import { DELIVERY_STATUSES, isOwedAttempt, type DeliveryStatus } from '@mailer/domain';
import { createTestDatabase } from '@mailer/testing';
import { openDatabase, type DatabaseHandle } from '../database';
import { createAccount } from './accounts-store';
import { owedDeliveryJobs, type OwedDeliveryJob, type OwedDeliveryQuery } from './owed-deliveries-store';

let database: DatabaseHandle;

beforeAll(async () => {
  database = openDatabase(await createTestDatabase(), 2);
});
afterAll(() => database.close());

interface DeliveryFixture {
  id: string;
  emailId: string;
  status: DeliveryStatus;
  nextAttemptAt: Date;
  leaseExpiresAt: Date | null;
  heldAt: Date | null;
}

const insertDeliveries = (accountId: string, rows: readonly DeliveryFixture[]) => database.db`
  insert into deliveries (id, email_id, account_id, recipient, recipient_domain, kind, status, next_attempt_at, lease_expires_at, held_at)
  select x.id, x.email_id, ${accountId}, 'a@b.test', 'b.test', 'to', x.status, x.next_attempt_at, x.lease_expires_at, x.held_at
    from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.emailId)}::text[], ${rows.map((r) => r.status)}::text[],
                ${rows.map((r) => r.nextAttemptAt.toISOString())}::text[]::timestamptz[],
                ${rows.map((r) => r.leaseExpiresAt?.toISOString() ?? null)}::text[]::timestamptz[],
                ${rows.map((r) => r.heldAt?.toISOString() ?? null)}::text[]::timestamptz[])
         as x(id, email_id, status, next_attempt_at, lease_expires_at, held_at)`;

/** Every page of the query, each as its list of jobs. */
async function pagesOf(query: OwedDeliveryQuery): Promise<OwedDeliveryJob[][]> {
  const pages: OwedDeliveryJob[][] = [];
  for await (const page of owedDeliveryJobs(database.db, query)) pages.push(page);
  return pages;
}

describe('owedDeliveryJobs', () => {
  it('finds in SQL exactly the messages isOwedAttempt owes an attempt', async () => {
    const { db } = database;
    const accountId = (await createAccount(db, 'Owed')).account.id;
    const now = new Date('2030-01-01T00:00:00.000Z');
    const offset = fc.integer({ min: -5, max: 5 }).map((s) => new Date(now.getTime() + s * 1000));
    const delivery = fc.record({
      status: fc.constantFrom(...DELIVERY_STATUSES),
      nextAttemptAt: offset,
      leaseExpiresAt: fc.option(offset, { nil: null }),
      heldAt: fc.option(offset, { nil: null }),
    });
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(delivery, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }), async (messages) => {
        const prefix = `r${++round}_`;
        const rows = messages.flatMap((deliveries, m) =>
          deliveries.map((d, k) => ({ ...d, id: `dlv_${prefix}${m}_${k}`, emailId: `em_${prefix}${m}`, status: d.status as DeliveryStatus })),
        );
        await insertDeliveries(accountId, rows);
        try {
          const found = new Set<string>();
          for await (const page of owedDeliveryJobs(db, { now, graceMs: 0, pageSize: 100 })) for (const job of page) found.add(job.emailId);
          const owed = new Set(rows.filter((r) => isOwedAttempt(r, now, true)).map((r) => r.emailId));
          expect([...found].filter((id) => id.startsWith(`em_${prefix}`)).sort()).toEqual([...owed].sort());
        } finally {
          await db`delete from deliveries where account_id = ${accountId}`;
        }
      }),
      { numRuns: 40 },
    );
  });

  it("dates each message by its earliest owed delivery, waits the grace on waiting ones only, and pages in email id order", async () => {
    const { db } = database;
    const accountId = (await createAccount(db, 'Owed pages')).account.id;
    const now = new Date('2031-01-01T00:00:00.000Z');
    const ago = (s: number) => new Date(now.getTime() - s * 1000);
    const row = (id: string, emailId: string, status: DeliveryStatus, nextAttemptAt: Date, leaseExpiresAt: Date | null = null): DeliveryFixture => ({
      id,
      emailId,
      status,
      nextAttemptAt,
      leaseExpiresAt,
      heldAt: null,
    });
    await insertDeliveries(accountId, [
      // Queued 60 s ago beside a lease expired 90 s ago: owed since the lease expired.
      row('dlv_p1a', 'em_p1', 'queued', ago(60)),
      row('dlv_p1b', 'em_p1', 'sending', ago(600), ago(90)),
      // Deferred, due 5 s ago: within a 10 s grace.
      row('dlv_p2', 'em_p2', 'deferred', ago(5)),
      // A lease expired 5 s ago: the grace is for waiting deliveries only.
      row('dlv_p3', 'em_p3', 'sending', ago(600), ago(5)),
      row('dlv_p4', 'em_p4', 'queued', ago(30)),
    ]);
    try {
      const pages = await pagesOf({ now, graceMs: 10_000, pageSize: 2 });
      expect(pages.map((page) => page.map((j) => j.emailId))).toEqual([['em_p1', 'em_p3'], ['em_p4']]);
      expect(pages.flat()).toEqual([
        { emailId: 'em_p1', dueAt: ago(90), accountId },
        { emailId: 'em_p3', dueAt: ago(5), accountId },
        { emailId: 'em_p4', dueAt: ago(30), accountId },
      ]);
      // The look for dead daemons' work: expired leases alone.
      expect((await pagesOf({ now, graceMs: 10_000, pageSize: 10, expiredLeasesOnly: true })).flat()).toEqual([
        { emailId: 'em_p1', dueAt: ago(90), accountId },
        { emailId: 'em_p3', dueAt: ago(5), accountId },
      ]);
    } finally {
      await db`delete from deliveries where account_id = ${accountId}`;
    }
  });
});
