import { claimMessages } from '@mailer/db';
import { deliverMessageJobId } from '@mailer/queue';
import { intakeTestBed, sendingAccount } from '../../testing/sending-account';

/** PATCH /v1/emails/{id} (docs/api-decisions.md, "Scheduled send and cancel"); with a daemon and an SMTP peer: apps/worker deliver-through-api.test.ts. */
const bed = intakeTestBed();

const reschedule = (id: string, body: unknown) => bed.api.http.patch(`/v1/emails/${id}`).set('Authorization', bed.acme.auth).send(body as object);
const hoursAhead = (hours: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + hours * 3600_000);
const deliveryRows = (id: string) => bed.api.deps.db`select next_attempt_at, created_at from deliveries where email_id = ${id} order by position`;
const jobAt = (id: string, at: Date) => bed.api.deps.deliveryQueue.queue.getJob(deliverMessageJobId(id, at));

describe('PATCH /v1/emails/{id}', () => {
  it('moves a scheduled message later and then earlier: every queued delivery is due then, with its job enqueued, and nothing else changes', async () => {
    const sent = await bed.acme.send(bed.acme.message({ to: ['ann@example.test', 'bob@example.test'], scheduled_at: hoursAhead(1).toISOString() }));
    expect(sent.status).toBe(202);
    for (const at of [hoursAhead(30), hoursAhead(2)]) {
      const res = await reschedule(sent.body.id, { scheduled_at: at.toISOString() });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: sent.body.id, status: 'queued', scheduled_at: at.toISOString(), attempts: [] });
      expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['queued']);
      // Due then, and first owed then: its age counts from the new time.
      expect(await deliveryRows(sent.body.id)).toEqual([
        { next_attempt_at: at, created_at: at },
        { next_attempt_at: at, created_at: at },
      ]);
      expect(await jobAt(sent.body.id, at)).toBeDefined();
    }
  });

  it('makes a message due at once for an instant already past, and takes an unscheduled one not yet started', async () => {
    const sent = await bed.acme.send(bed.acme.message({ to: 'now@example.test' }));
    const past = new Date(Date.now() - 60_000);
    const res = await reschedule(sent.body.id, { scheduled_at: past.toISOString() });
    expect(res.status).toBe(200);
    expect(res.body.scheduled_at).toBe(past.toISOString());
    const [row] = await deliveryRows(sent.body.id);
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(past.getTime());
  });

  it('checks scheduled_at as intake does: 422 naming it, the message unchanged', async () => {
    const at = hoursAhead(1);
    const sent = await bed.acme.send(bed.acme.message({ to: 'ann@example.test', scheduled_at: at.toISOString() }));
    for (const body of [{ scheduled_at: 'tomorrow' }, { scheduled_at: '2026-02-30T10:00:00Z' }, { scheduled_at: hoursAhead(24 * 8).toISOString() }, {}, { scheduled_at: at.toISOString(), to: 'x@example.test' }]) {
      const res = await reschedule(sent.body.id, body);
      expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([Object.keys(body).find((k) => k !== 'scheduled_at') ?? 'scheduled_at']);
    }
    expect((await bed.acme.get(`/v1/emails/${sent.body.id}`)).body.scheduled_at).toBe(at.toISOString());
    expect((await deliveryRows(sent.body.id))[0]!.next_attempt_at).toEqual(at);
  });

  it('answers 409 email_not_reschedulable once a delivery is leased, and after a cancel', async () => {
    const leased = await bed.acme.send(bed.acme.message({ to: 'lease@example.test' }));
    await claimMessages(bed.api.deps.db, [leased.body.id], new Date(), 60_000);
    const canceled = await bed.acme.send(bed.acme.message({ to: 'gone@example.test', scheduled_at: hoursAhead(1).toISOString() }));
    expect((await bed.api.http.post(`/v1/emails/${canceled.body.id}/cancel`).set('Authorization', bed.acme.auth)).status).toBe(200);
    for (const id of [leased.body.id, canceled.body.id]) {
      const res = await reschedule(id, { scheduled_at: hoursAhead(3).toISOString() });
      expect([res.status, res.body.error.code]).toEqual([409, 'email_not_reschedulable']);
    }
    expect((await bed.acme.get(`/v1/emails/${leased.body.id}`)).body).toMatchObject({ status: 'sending', scheduled_at: null });
  });

  it('answers 404 email_not_found for unknown and other accounts’ ids, before looking at the body', async () => {
    const other = await sendingAccount(bed.api, { domain: 'other-reschedule.test' });
    const theirs = await other.send(other.message({ scheduled_at: hoursAhead(1).toISOString() }));
    for (const id of ['em_doesnotexist0000000000', theirs.body.id]) {
      const res = await reschedule(id, { scheduled_at: 'not a date' });
      expect([res.status, res.body.error.code]).toEqual([404, 'email_not_found']);
    }
  });
});
